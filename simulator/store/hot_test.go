package store_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestTenantMemory: tenants and API keys resolved from memory follow every
// tenant write (committed or rolled back), and a caller changing its copy
// changes nothing for the next one.
func TestTenantMemory(t *testing.T) {
	db := openDB(t)
	put := func(tn *simulator.Tenant) {
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutTenant(tn) }))
	}
	keyOf := func(k string) string {
		tn, err := db.CachedTenantByAPIKey(k)
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
			tn, err := db.CachedTenantByAPIKey("k1")
			require.NoError(t, err)
			tn.WebhookURL = "http://changed"
		}, map[string]string{"k1": "a/http://one"}},
		{"key rotated", func() {
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
			tn, err := db.CachedTenant("a")
			require.NoError(t, err)
			if s.want["k2"] == "" && s.want["k1"] == "" {
				assert.Nil(t, tn)
			} else {
				require.NotNil(t, tn)
			}
		})
	}
}
