package httpapi_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestCorruptTenantFileAnswers503: a tenant whose data file cannot be read
// answers 503 TenantUnavailable on its data routes while another tenant
// works on the same server.
func TestCorruptTenantFileAnswers503(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true})
	pid := a.pay(1000, numOK).Str("id")
	other := a.as(a.newTenant(nil))
	otherPid := other.pay(1000, numOK).Str("id")
	stop()

	bad := filepath.Join(store.TenantsDir(path), store.TenantFileName(simulator.DefaultTenantID))
	require.NoError(t, os.WriteFile(bad, []byte("this is not a buntdb file\n"), 0o600))

	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always", IDs: simulator.RandomIDs{}, Paused: true})
	r := b.req("GET", "/payments/"+pid, nil)
	assert.Equal(t, 503, r.Status, "%s", r.Body)
	assert.Equal(t, "TenantUnavailable", r.Err()["errorId"], "%s", r.Body)
	assert.Contains(t, r.Err()["description"], "This tenant's data cannot be opened")

	other = b.as(other.Key)
	assert.Equal(t, "AUTHORIZED", other.must(200, "GET", "/payments/"+otherPid, nil).Str("status"), "another tenant works")
	other.pay(1000, numOK)
}
