package main

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartupBanner: serve says once where it answers, with which key,
// where the data lives, which scenario rules are in force and, with
// --debug-addr, how to profile it.
func TestStartupBanner(t *testing.T) {
	dir := t.TempDir()
	scenariosAbs, err := filepath.Abs("../../scenarios.yaml")
	require.NoError(t, err)
	tests := []struct {
		name   string
		config func(c *Config)
		want   []string
	}{
		{"in memory", func(*Config) {}, []string{"listening on http://127.0.0.1:", "API key:  sandbox-api-key (tenant default)", "data:     in memory"}},
		{"file", func(c *Config) { c.DB = filepath.Join(dir, "p.db") }, []string{"data:     " + filepath.Join(dir, "p.db")}},
		{"built-in rules", func(*Config) {}, []string{"rules:    built-in (paysandbox scenarios list shows them; --scenarios FILE replaces them)"}},
		{"a scenarios file", func(c *Config) { c.Scenarios = "../../scenarios.yaml" }, []string{"rules:    " + scenariosAbs}},
		{"no default tenant", func(c *Config) { c.DefaultTenant = ptrTo(false) }, []string{"API key:  none: the default tenant is off (--no-default-tenant)"}},
		{"profiler", func(c *Config) { c.DebugAddr = "127.0.0.1:0" }, []string{"profile:  go tool pprof http://127.0.0.1:", "/debug/pprof/profile?seconds=10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.config(&cfg)
			app, err := Open(cfg, AppOptions{LogOut: io.Discard})
			require.NoError(t, err)
			t.Cleanup(func() { _ = app.Close() })
			require.NoError(t, app.Listen())
			var buf bytes.Buffer
			printStartup(&buf, app)
			for _, w := range tc.want {
				assert.Contains(t, buf.String(), w)
			}
			assert.Contains(t, buf.String(), "curl -s "+app.URL()+"/healthz")
			if cfg.DebugAddr == "" {
				assert.NotContains(t, buf.String(), "profile:", "no profiler unless --debug-addr")
			}
		})
	}
}
