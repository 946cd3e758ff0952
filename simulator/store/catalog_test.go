package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// A catalog value put again unchanged appends nothing to the file: the
// configured tenants are put at every start, and a start on a full disk
// must not need space (TestDiskFull in cmd/paysandbox covers the disk).
func TestCatalogUnchangedPutAppendsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.db")
	db := openTenants(t, path, Options{})
	tn := &simulator.Tenant{ID: "default", APIKeys: []simulator.APIKey{{Key: "k", Scopes: simulator.AllScopes}},
		SigningSecret: "whsec_x", WebhookURL: "http://127.0.0.1:9/hook", FromConfig: true}
	put := func() int64 {
		t.Helper()
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutTenant(tn) }))
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st.Size()
	}
	first := put()
	assert.Equal(t, first, put(), "the same tenant put again")
	tn.WebhookURL = "http://127.0.0.1:9/other"
	assert.Greater(t, put(), first, "a changed tenant is written")
	var got *simulator.Tenant
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { got, err = tx.Tenant("default"); return }))
	require.NotNil(t, got)
	assert.Equal(t, tn.WebhookURL, got.WebhookURL)
}
