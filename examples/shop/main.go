// Command shop is a merchant's app in miniature, the example that
// paysandboxtest is used with: a checkout that pays through the payment
// API and a webhook handler that verifies each delivery's signature and
// keeps the order's status. shop_test.go tests it against an in-process
// sandbox, a tenant per test.
//
// Run it against a sandbox (`paysandbox serve`, then `paysandbox tenants
// create -o env` for the variables):
//
//	PAYSANDBOX_URL=http://localhost:8080 PAYSANDBOX_API_KEY=... \
//	PAYSANDBOX_SIGNING_SECRET=... SHOP_ADDR=127.0.0.1:4000 go run ./examples/shop
//
// and send the tenant's webhooks to it: `paysandbox webhooks endpoint set
// http://127.0.0.1:4000/webhooks`.
package main

import (
	"log"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := os.Getenv("SHOP_ADDR")
	if addr == "" {
		addr = "127.0.0.1:4000"
	}
	s := newShop(config{
		APIURL:        os.Getenv("PAYSANDBOX_URL"),
		APIKey:        os.Getenv("PAYSANDBOX_API_KEY"),
		SigningSecret: os.Getenv("PAYSANDBOX_SIGNING_SECRET"),
	})
	srv := &http.Server{Addr: addr, Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("shop listening on http://%s (webhooks at /webhooks)", addr)
	log.Fatal(srv.ListenAndServe())
}
