package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// damageValue overwrites the value of the record whose key ends in suffix
// in the buntdb file at path with as many 'x' bytes (the file loads; the
// record does not decode).
func damageValue(t *testing.T, path, suffix string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	end := bytes.LastIndex(b, []byte(suffix+"\r\n$"))
	require.GreaterOrEqual(t, end, 0, "%s is in the file", suffix)
	i := end + len(suffix) + 3
	j := bytes.Index(b[i:], []byte("\r\n"))
	var n int
	_, err = fmt.Sscanf(string(b[i:i+j]), "%d", &n)
	require.NoError(t, err)
	copy(b[i+j+2:i+j+2+n], bytes.Repeat([]byte("x"), n))
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// A damaged payment: `tenants export` writes the snapshot without it (and
// what refers to it), names what it left out on stderr and exits 1, or 0
// with --allow-skipped; the snapshot imports.
func TestExportWithAnUnreadableRecord(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "ps.db")
	cfg.Fsync = "always"
	clk := clock.NewManual(testEpoch)
	a, stop := startOn(t, cfg, clk)
	var ids []string
	for range 3 {
		ids = append(ids, a.pay(1000, numOK).Str("id"))
	}
	stop()
	damageValue(t, filepath.Join(store.TenantsDir(cfg.DB), store.TenantFileName(simulator.DefaultTenantID)), "pay:"+ids[1])
	a, _ = startOn(t, cfg, clk)

	file := filepath.Join(t.TempDir(), "snap.json")
	code, stdout, stderr := cliRun(t, a, nil, "tenants", "export", "--output", file)
	assert.Equal(t, exitError, code, "stdout: %s stderr: %s", stdout, stderr)
	assert.Contains(t, stderr, "skipped: payment "+ids[1])
	assert.Contains(t, stderr, "RecordsSkipped")
	snap, err := os.ReadFile(file)
	require.NoError(t, err, "the snapshot is written anyway")
	var doc struct {
		Skipped []map[string]string `json:"skipped"`
	}
	require.NoError(t, json.Unmarshal(snap, &doc))
	require.NotEmpty(t, doc.Skipped)

	code, _, stderr = cliRun(t, a, nil, "tenants", "export", "--output", file, "--allow-skipped")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Contains(t, stderr, "skipped: payment "+ids[1], "still named")

	r := importSnapshot(a, snap)
	require.Equal(t, 201, r.Status, "the export imports: %s", r.Body)
	nb := *a
	nb.Key = r.Str("apiKey")
	assert.Len(t, nb.must(200, "GET", "/payments", nil).JSON["data"], 2)
}

// A tenant whose file was removed while the server was down answers 503
// saying so until `tenants accept-loss` (admin key); then it opens empty.
func TestAcceptLossCommand(t *testing.T) {
	cfg := testConfig()
	cfg.DB = filepath.Join(t.TempDir(), "ps.db")
	cfg.AdminKey = "adm"
	clk := clock.NewManual(testEpoch)
	a, stop := startOn(t, cfg, clk)
	a.pay(1000, numOK)
	stop()
	require.NoError(t, os.Remove(filepath.Join(store.TenantsDir(cfg.DB), store.TenantFileName(simulator.DefaultTenantID))))
	a, _ = startOn(t, cfg, clk)

	code, _, stderr := cliRun(t, a, nil, "payments", "list")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "Error: TenantUnavailable:")
	assert.Contains(t, stderr, "its file is missing")

	code, _, stderr = cliRun(t, a, nil, "tenants", "accept-loss", simulator.DefaultTenantID)
	assert.Equal(t, exitError, code, "the admin key is needed")
	assert.Contains(t, stderr, "Unauthorized")
	code, stdout, stderr := cliRun(t, a, nil, "tenants", "accept-loss", simulator.DefaultTenantID, "--admin-key", "adm", "--output", "json")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.JSONEq(t, `{"tenantId":"`+simulator.DefaultTenantID+`","lost":"its file is missing"}`, stdout)
	code, _, stderr = cliRun(t, a, nil, "payments", "list")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
}
