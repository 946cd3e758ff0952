package store_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestTenantCache: tenants and API keys read through the cache follow every
// tenant write (committed or rolled back), and a caller changing its copy
// changes nothing for the next one.
func TestTenantCache(t *testing.T) {
	db := openDB(t)
	put := func(tn *simulator.Tenant) {
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutTenant(tn) }))
	}
	keyOf := func(k string) string {
		tn, err := db.ReadTenantByAPIKey(k)
		require.NoError(t, err)
		if tn == nil {
			return ""
		}
		return tn.ID + "/" + tn.WebhookURL
	}
	put(&simulator.Tenant{ID: "a", APIKeys: []simulator.APIKey{{Key: "k1"}}, WebhookURL: "http://one"})

	steps := []struct {
		name string
		do   func()
		want map[string]string // API key -> "tenant/webhookURL" ("" = unknown)
	}{
		{"first read fills", func() {}, map[string]string{"k1": "a/http://one", "k2": ""}},
		{"caller's copy is its own", func() {
			tn, err := db.ReadTenantByAPIKey("k1")
			require.NoError(t, err)
			tn.WebhookURL = "http://changed"
		}, map[string]string{"k1": "a/http://one"}},
		{"key rotated", func() {
			put(&simulator.Tenant{ID: "a", APIKeys: []simulator.APIKey{{Key: "k2"}}, WebhookURL: "http://two"})
		}, map[string]string{"k1": "", "k2": "a/http://two"}},
		{"a transaction reads its own tenant write, then others read it", func() {
			require.NoError(t, db.View(func(tx simulator.Tx) error { _, err := tx.Tenant("a"); return err })) // cached
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				tn, err := tx.Tenant("a")
				require.NoError(t, err)
				assert.Equal(t, "http://two", tn.WebhookURL)
				tn.WebhookURL = "http://three"
				require.NoError(t, tx.PutTenant(tn))
				again, err := tx.Tenant("a")
				require.NoError(t, err)
				assert.Equal(t, "http://three", again.WebhookURL)
				return nil
			}))
			require.NoError(t, db.View(func(tx simulator.Tx) error {
				tn, err := tx.Tenant("a")
				require.NoError(t, err)
				assert.Equal(t, "http://three", tn.WebhookURL)
				return nil
			}))
			put(&simulator.Tenant{ID: "a", APIKeys: []simulator.APIKey{{Key: "k2"}}, WebhookURL: "http://two"})
		}, map[string]string{"k1": "", "k2": "a/http://two"}},
		{"rolled-back write", func() {
			err := db.Update(func(tx simulator.Tx) error {
				require.NoError(t, tx.PutTenant(&simulator.Tenant{ID: "a", APIKeys: []simulator.APIKey{{Key: "k3"}}}))
				return errors.New("roll back")
			})
			require.Error(t, err)
		}, map[string]string{"k2": "a/http://two", "k3": ""}},
		{"tenant deleted", func() {
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData("a", true) }))
		}, map[string]string{"k2": ""}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do()
			for range 2 { // the miss, then the hit
				for k, want := range s.want {
					assert.Equal(t, want, keyOf(k), "key %s", k)
				}
			}
			tn, err := db.ReadTenant("a")
			require.NoError(t, err)
			if s.want["k2"] == "" && s.want["k1"] == "" {
				assert.Nil(t, tn)
			} else {
				require.NotNil(t, tn)
			}
			for range 2 { // the listing (the miss, then the hit) says the same, in copies of its own
				var list []*simulator.Tenant
				require.NoError(t, db.View(func(tx simulator.Tx) (err error) { list, err = tx.Tenants(); return }))
				var urls []string
				for _, l := range list {
					urls = append(urls, l.ID+"/"+l.WebhookURL)
					l.WebhookURL = "http://changed"
				}
				if tn == nil {
					assert.Empty(t, urls)
				} else {
					assert.Equal(t, []string{"a/" + tn.WebhookURL}, urls)
				}
			}
		})
	}
}

// TestTenantCacheConcurrent: while a writer changes a tenant over and
// over, a reader never sees an older version after a newer one, and once an
// Update returned every later read sees at least its version.
func TestTenantCacheConcurrent(t *testing.T) {
	db := openDB(t)
	version := func(n int) *simulator.Tenant {
		return &simulator.Tenant{ID: "a", APIKeys: []simulator.APIKey{{Key: "k"}}, ClockOffset: time.Duration(n)}
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutTenant(version(0)) }))
	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := time.Duration(-1)
			for {
				select {
				case <-stop:
					return
				default:
				}
				floor := time.Duration(committed.Load())
				var tn *simulator.Tenant
				var err error
				if r%2 == 0 {
					tn, err = db.ReadTenantByAPIKey("k")
				} else {
					err = db.View(func(tx simulator.Tx) (err error) { tn, err = tx.Tenant("a"); return })
				}
				if !assert.NoError(t, err) || !assert.NotNil(t, tn) {
					return
				}
				assert.GreaterOrEqual(t, tn.ClockOffset, floor, "a committed version is never lost")
				assert.GreaterOrEqual(t, tn.ClockOffset, last, "versions never go back")
				last = tn.ClockOffset
			}
		}()
	}
	for n := 1; n <= 300; n++ {
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutTenant(version(n)) }))
		committed.Store(int64(n))
	}
	close(stop)
	wg.Wait()
}
