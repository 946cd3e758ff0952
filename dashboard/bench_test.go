package dashboard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkPages measures the dashboard's pages with 10,000 payments in the
// tenant (the aim is under 200 ms a page; docs/performance.md has the figures):
//
//	go test ./dashboard -run '^$' -bench Pages -benchtime 20x
func BenchmarkPages(b *testing.B) {
	e := newEnv(b, Options{})
	const n = 10000 // amounts 100-3999: the scenario rules' magic amounts start at 4051
	cards := []string{cardOK, cardOK, cardOK, cardDecline}
	var last string
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			e.clock.Advance(1e9)
		}
		last = e.pay(e.tenant, int64(100+i%3900), cards[i%len(cards)], fmt.Sprintf("order-%05d", i), fmt.Sprintf("cust-%d", i%50)).ID
	}
	e.signIn(testKey)
	cookie := e.client.Jar.Cookies(mustURL(e.srv.URL + Prefix))
	pages := []struct{ name, path string }{
		{"payments", "/payments"},
		{"payments_page_2", ""},
		{"status_DECLINED", "/payments?status=DECLINED"},
		{"order_id", "/payments?orderId=order-00042"},
		{"customer", "/payments?customerId=cust-7"},
		{"amount_range", "/payments?minAmount=2000&maxAmount=2100"},
		{"payment", "/payments/" + last},
		{"attempts", "/attempts"},
		{"clock", "/clock"},
	}
	next := e.get(Prefix + "/payments").Body
	i := strings.Index(next, `rel="next"`)
	pages[1].path = strings.TrimPrefix(strings.ReplaceAll(next[strings.LastIndex(next[:i], `href="`)+6:i-2], "&amp;", "&"), Prefix)
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, Prefix+p.path, nil)
				for _, c := range cookie {
					req.AddCookie(c)
				}
				w := httptest.NewRecorder()
				e.ui.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.path, w.Code)
				}
			}
		})
	}
	b.Run("sse_fingerprint_payments", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, Prefix+"/events?topic=payments", nil)
		fp := e.ui.fingerprinter(&auth{Tenant: e.tenant, Key: e.tenant.APIKeys[0]}, "payments", req)
		for b.Loop() {
			fp()
		}
	})
}
