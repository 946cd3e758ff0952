package store

import (
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// BenchmarkTenantByAPIKey resolves an API key to its tenant as every
// authenticated request does, from the tenant cache and from the catalog
// (a transaction without the cache: a read of the key's entry and a decode
// of the tenant record):
//
//	go test ./simulator/store -run '^$' -bench TenantByAPIKey -benchmem
func BenchmarkTenantByAPIKey(b *testing.B) {
	db, err := Open(":memory:", FsyncNever, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	tn := &simulator.Tenant{ID: "t_bench", APIKeys: []simulator.APIKey{{Key: "key-bench", Scopes: simulator.AllScopes}},
		SigningSecret: "whsec_0123456789abcdef0123456789abcdef", WebhookURL: "https://merchant.example/hooks",
		CreatedAt: time.Unix(1700000000, 0).UTC()}
	if err := db.Update(func(tx simulator.Tx) error { return tx.PutTenant(tn) }); err != nil {
		b.Fatal(err)
	}
	for _, cached := range []bool{true, false} {
		name := "catalog"
		if cached {
			name = "cache"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				tx := &Tx{d: db}
				if cached {
					tx.tenants = &db.tenants
				}
				got, err := tx.TenantByAPIKey("key-bench")
				tx.end()
				if err != nil || got == nil {
					b.Fatal(err, got)
				}
			}
		})
	}
}
