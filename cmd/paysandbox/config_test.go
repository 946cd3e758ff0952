package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
)

// defaultConfig is what `serve` runs with when nothing is set.
func defaultConfig() Config {
	return Config{
		Addr: "127.0.0.1:8080", AllowedHost: []string{}, DB: "./data/paysandbox.db", RequestTimeout: 90 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "everysecond", TenantIdleClose: 5 * time.Minute, MaxOpenTenants: 256, LogFormat: "text", LogLevel: "info", Tenants: []TenantConfig{},
		ReadTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second, MaxConnections: 4096,
		MaxWaitsPerTenant: 64, ShutdownTimeout: 5 * time.Second,
		WebhookTimeout: 10 * time.Second, WebhookRetentionCount: 1000, WebhookRetentionAge: 7 * 24 * time.Hour,
		WebhookSlotsPerTenant: 8, AdvanceWait: 30 * time.Second,
		DefaultTenant: ptrTo(true), JournalSize: 500, WebhookAllow: []string{}, TrustedProxy: []string{},
		Seed: []string{}, SnapshotMaxBytes: 64 << 20,
	}
}

// writeConfig writes a YAML config file and returns its path.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "paysandbox.yaml")
	require.NoError(t, os.WriteFile(p, []byte(yaml), 0o600))
	return p
}

// TestServeFlags is the flag-parsing table of `serve` (cli/cli style):
// through runF, it checks the resolved configuration. Precedence: flags >
// env PAYSANDBOX_* > config file > defaults.
func TestServeFlags(t *testing.T) {
	fileWithTenants := `
addr: ":7000"
db: /var/lib/paysandbox/file.db
request_timeout: 30s
attempt_ttl: 5m
admin_key: from-file
webhook_url: https://hooks.example/file
log_format: json
tenants:
  - id: shop
    signing_secret: shop-secret
    webhook_url: https://hooks.example/shop
    first6_digits: true
    api_keys:
      - key: shop-read
        scopes: [transactions:retrieve, payment_instrument:read]
      - key: shop-all
`
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		file    string // config file content, passed with --config
		want    func(c *Config)
		wantErr []string // substrings of the error
	}{
		{name: "defaults", want: func(*Config) {}},
		{name: "--addr", args: []string{"--addr", "127.0.0.1:9999"}, want: func(c *Config) { c.Addr = "127.0.0.1:9999" }},
		{name: "--db", args: []string{"--db", ":memory:"}, want: func(c *Config) { c.DB = ":memory:" }},
		{name: "--scenarios", args: []string{"--scenarios", "my.yaml"}, want: func(c *Config) { c.Scenarios = "my.yaml" }},
		{name: "limits flags", args: []string{"--read-timeout", "250ms", "--idle-timeout", "5s", "--max-connections", "10", "--max-waits-per-tenant", "3", "--shutdown-timeout", "1s"},
			want: func(c *Config) {
				c.ReadTimeout, c.IdleTimeout, c.MaxConnections, c.MaxWaitsPerTenant, c.ShutdownTimeout = 250*time.Millisecond, 5*time.Second, 10, 3, time.Second
			}},
		{name: "limits env", env: map[string]string{"PAYSANDBOX_MAX_CONNECTIONS": "7", "PAYSANDBOX_SHUTDOWN_TIMEOUT": "2s"},
			want: func(c *Config) { c.MaxConnections, c.ShutdownTimeout = 7, 2*time.Second }},
		{name: "webhook settings from env", env: map[string]string{"PAYSANDBOX_WEBHOOK_RETENTION_COUNT": "50", "PAYSANDBOX_WEBHOOK_TIMEOUT": "2s", "PAYSANDBOX_WEBHOOK_RETENTION_AGE": "1h"},
			want: func(c *Config) {
				c.WebhookRetentionCount, c.WebhookTimeout, c.WebhookRetentionAge = 50, 2*time.Second, time.Hour
			}},
		{name: "--webhook-slots-per-tenant and --advance-wait", args: []string{"--webhook-slots-per-tenant", "2", "--advance-wait", "500ms"},
			want: func(c *Config) { c.WebhookSlotsPerTenant, c.AdvanceWait = 2, 500*time.Millisecond }},
		{name: "webhook slots and advance wait from env", env: map[string]string{"PAYSANDBOX_WEBHOOK_SLOTS_PER_TENANT": "16", "PAYSANDBOX_ADVANCE_WAIT": "1m"},
			want: func(c *Config) { c.WebhookSlotsPerTenant, c.AdvanceWait = 16, time.Minute }},
		{name: "webhook slots and advance wait from the file", file: "webhook_slots_per_tenant: 4\nadvance_wait: 2s\n",
			want: func(c *Config) { c.WebhookSlotsPerTenant, c.AdvanceWait = 4, 2*time.Second }},
		{name: "more slots per tenant than in all", args: []string{"--webhook-slots-per-tenant", "65"}, wantErr: []string{"--webhook-slots-per-tenant: 65 is not from 0"}},
		{name: "negative advance wait", args: []string{"--advance-wait", "-1s"}, wantErr: []string{"--advance-wait: -1s must not be negative"}},
		{name: "--webhook-version", args: []string{"--webhook-version", "2.2"}, want: func(c *Config) { c.WebhookVersion = "2.2" }},
		{name: "webhook version from env", env: map[string]string{"PAYSANDBOX_WEBHOOK_VERSION": "2.1"}, want: func(c *Config) { c.WebhookVersion = "2.1" }},
		{name: "unknown webhook version", args: []string{"--webhook-version", "2.5"}, wantErr: []string{`--webhook-version: "2.5" must be one of 2.1, 2.2, 2.3, 2.4`}},
		{name: "webhook versions in the file", file: "webhook_version: \"2.3\"\ntenants:\n  - id: shop\n    webhook_version: \"2.1\"\n    api_keys: [{key: k}]\n",
			want: func(c *Config) {
				c.WebhookVersion = "2.3"
				c.Tenants = []TenantConfig{{ID: "shop", WebhookVersion: "2.1", APIKeys: []APIKeyConfig{{Key: "k"}}}}
			}},
		{name: "unknown tenant webhook version", file: "tenants:\n  - id: shop\n    webhook_version: \"3\"\n    api_keys: [{key: k}]\n",
			wantErr: []string{"tenants[0].webhook_version in ", `: "3" must be one of 2.1, 2.2, 2.3, 2.4`}},
		{name: "advance wait from env that is not a duration", env: map[string]string{"PAYSANDBOX_ADVANCE_WAIT": "long"}, wantErr: []string{`PAYSANDBOX_ADVANCE_WAIT="long": not a duration`}},
		{name: "webhook slots from env that are not a number", env: map[string]string{"PAYSANDBOX_WEBHOOK_SLOTS_PER_TENANT": "many"}, wantErr: []string{`PAYSANDBOX_WEBHOOK_SLOTS_PER_TENANT="many": not an integer`}},
		{name: "a negative webhook setting is named with its value", env: map[string]string{"PAYSANDBOX_WEBHOOK_RETENTION_COUNT": "-1"},
			wantErr: []string{"PAYSANDBOX_WEBHOOK_RETENTION_COUNT: -1 must not be negative"}},
		{name: "negative limits", args: []string{"--max-connections", "-1", "--read-timeout", "-1s"},
			wantErr: []string{"config: 2 problems:\n", "--max-connections: -1 must not be negative", "--read-timeout: -1s must not be negative"}},
		{name: "--request-timeout in milliseconds", args: []string{"--request-timeout", "50ms"}, want: func(c *Config) { c.RequestTimeout = 50 * time.Millisecond }},
		{name: "--attempt-ttl", args: []string{"--attempt-ttl", "2m"}, want: func(c *Config) { c.AttemptTTL = 2 * time.Minute }},
		{name: "--fsync", args: []string{"--fsync", "always"}, want: func(c *Config) { c.Fsync = "always" }},
		{name: "--admin-key", args: []string{"--admin-key", "adm"}, want: func(c *Config) { c.AdminKey = "adm" }},
		{name: "--webhook-url", args: []string{"--webhook-url", "http://localhost:9000/hooks"}, want: func(c *Config) { c.WebhookURL = "http://localhost:9000/hooks" }},
		{name: "--log-format", args: []string{"--log-format", "json"}, want: func(c *Config) { c.LogFormat = "json" }},
		{name: "--log-level", args: []string{"--log-level", "debug"}, want: func(c *Config) { c.LogLevel = "debug" }},
		{name: "--flag=value form", args: []string{"--addr=:1234", "--fsync=never"}, want: func(c *Config) { c.Addr, c.Fsync = ":1234", "never" }},
		{name: "env", env: map[string]string{
			"PAYSANDBOX_ADDR": ":7001", "PAYSANDBOX_DB": "/tmp/env.db", "PAYSANDBOX_REQUEST_TIMEOUT": "2s",
			"PAYSANDBOX_ATTEMPT_TTL": "1m", "PAYSANDBOX_FSYNC": "never", "PAYSANDBOX_ADMIN_KEY": "env-adm",
			"PAYSANDBOX_WEBHOOK_URL": "https://hooks.example/env", "PAYSANDBOX_LOG_FORMAT": "json", "PAYSANDBOX_LOG_LEVEL": "warn",
			"PAYSANDBOX_SCENARIOS": "env.yaml",
		}, want: func(c *Config) {
			c.Addr, c.DB, c.RequestTimeout, c.AttemptTTL, c.Fsync = ":7001", "/tmp/env.db", 2*time.Second, time.Minute, "never"
			c.AdminKey, c.WebhookURL, c.LogFormat, c.LogLevel, c.Scenarios = "env-adm", "https://hooks.example/env", "json", "warn", "env.yaml"
		}},
		{name: "config file", file: fileWithTenants, want: func(c *Config) {
			c.Addr, c.DB, c.RequestTimeout, c.AttemptTTL = ":7000", "/var/lib/paysandbox/file.db", 30*time.Second, 5*time.Minute
			c.AdminKey, c.WebhookURL, c.LogFormat = "from-file", "https://hooks.example/file", "json"
			c.Tenants = []TenantConfig{{
				ID: "shop", SigningSecret: "shop-secret", WebhookURL: "https://hooks.example/shop", First6Digits: true,
				APIKeys: []APIKeyConfig{
					{Key: "shop-read", Scopes: []string{"transactions:retrieve", "payment_instrument:read"}},
					{Key: "shop-all"},
				},
			}}
		}},
		{name: "env overrides the file", file: fileWithTenants, env: map[string]string{"PAYSANDBOX_ADDR": ":7001", "PAYSANDBOX_REQUEST_TIMEOUT": "1s"}, want: func(c *Config) {
			c.Addr, c.DB, c.RequestTimeout, c.AttemptTTL = ":7001", "/var/lib/paysandbox/file.db", time.Second, 5*time.Minute
			c.AdminKey, c.WebhookURL, c.LogFormat = "from-file", "https://hooks.example/file", "json"
			c.Tenants = []TenantConfig{{
				ID: "shop", SigningSecret: "shop-secret", WebhookURL: "https://hooks.example/shop", First6Digits: true,
				APIKeys: []APIKeyConfig{
					{Key: "shop-read", Scopes: []string{"transactions:retrieve", "payment_instrument:read"}},
					{Key: "shop-all"},
				},
			}}
		}},
		{name: "a flag overrides env and file", file: "addr: \":7000\"\n", args: []string{"--addr", ":7002"}, env: map[string]string{"PAYSANDBOX_ADDR": ":7001"},
			want: func(c *Config) { c.Addr = ":7002" }},
		{name: "a flag at its default value still overrides env", args: []string{"--fsync", "everysecond"}, env: map[string]string{"PAYSANDBOX_FSYNC": "never"},
			want: func(*Config) {}},
		{name: "config file from env", env: map[string]string{"PAYSANDBOX_CONFIG": "<file>"}, file: "admin_key: via-env-file\n",
			want: func(c *Config) { c.AdminKey = "via-env-file" }},
		{name: "missing config file", args: []string{"--config", "/nonexistent/paysandbox.yaml"}, wantErr: []string{"/nonexistent/paysandbox.yaml"}},
		{name: "config file that is not YAML", file: "addr: [unclosed\n", wantErr: []string{"config"}},
		{name: "unknown key in the config file", file: "request_timout: 2s\n", wantErr: []string{"request_timout in ", "paysandbox.yaml: unknown key; did you mean request_timeout?"}},
		{name: "unknown key in a config tenant", file: "tenants:\n  - id: shop\n    api_keys: [{key: k}]\n    scope: [x]\n", wantErr: []string{"tenants[0].scope in ", ": unknown key"}},
		{name: "bad fsync flag", args: []string{"--fsync", "sometimes"}, wantErr: []string{"fsync", "sometimes"}},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: []string{`--log-format: "xml" is not text or json`}},
		{name: "bad log level from env", env: map[string]string{"PAYSANDBOX_LOG_LEVEL": "loud"}, wantErr: []string{`PAYSANDBOX_LOG_LEVEL: "loud" is not debug`}},
		{name: "bad log level in the file", file: "log_level: loud\n", wantErr: []string{`log_level in `, `paysandbox.yaml: "loud" is not debug`}},
		{name: "negative request timeout", args: []string{"--request-timeout", "-1s"}, wantErr: []string{"--request-timeout: -1s must not be negative"}},
		{name: "request timeout that is not a duration", args: []string{"--request-timeout", "soon"}, wantErr: []string{`config: --request-timeout="soon": not a duration like 90s, 500ms or 15m`}},
		{name: "a duration in the file without a unit", file: "read_timeout: 30\n", wantErr: []string{`read_timeout in `, `="30": not a duration like 90s, 500ms or 15m (a number needs a unit)`}},
		{name: "a zero duration in the file needs no unit", file: "read_timeout: 0\n", want: func(c *Config) { c.ReadTimeout = 0 }},
		{name: "an integer flag that is not one", args: []string{"--max-connections", "lots"}, wantErr: []string{`--max-connections="lots": not an integer`}},
		{name: "every problem at once, from every source",
			file: "attempt_ttl: a while\nmax_waits_per_tenant: many\nrequest_timout: 2s\ntenants:\n  - id: 'shop one'\n    api_keys: [{key: k}]\n",
			args: []string{"--request-timeout", "soon", "--fsync", "sometimes", "--max-connections", "-1"},
			env:  map[string]string{"PAYSANDBOX_JOURNAL_SIZE": "lots", "PAYSANDBOX_LOG_LEVEL": "loud", "PAYSANDBOX_IDLE_TIMEOUT": "1 minute"},
			wantErr: []string{"config: 10 problems:\n",
				`--request-timeout="soon": not a duration`, `attempt_ttl in `, `="a while": not a duration`,
				`PAYSANDBOX_IDLE_TIMEOUT="1 minute": not a duration`, `max_waits_per_tenant in `, `="many": not an integer`,
				`PAYSANDBOX_JOURNAL_SIZE="lots": not an integer`, `request_timout in `, `: unknown key; did you mean request_timeout?`,
				`--fsync: "sometimes" is not always, everysecond or never`, `PAYSANDBOX_LOG_LEVEL: "loud" is not debug`,
				`--max-connections: -1 must not be negative`, `tenants[0].id in `, `: "shop one" must be 1-64 letters`}},
		{name: "request timeout from env that is not a duration", env: map[string]string{"PAYSANDBOX_REQUEST_TIMEOUT": "soon"}, wantErr: []string{`PAYSANDBOX_REQUEST_TIMEOUT="soon": not a duration`}},
		{name: "request timeout from env with spaces", env: map[string]string{"PAYSANDBOX_REQUEST_TIMEOUT": "5 seconds"}, wantErr: []string{`PAYSANDBOX_REQUEST_TIMEOUT="5 seconds": not a duration`}},
		{name: "attempt ttl in the file that is not a duration", file: "attempt_ttl: a while\n", wantErr: []string{`attempt_ttl in `, `="a while": not a duration`}},
		{name: "journal size from env that is not a number", env: map[string]string{"PAYSANDBOX_JOURNAL_SIZE": "lots"}, wantErr: []string{`PAYSANDBOX_JOURNAL_SIZE="lots": not an integer`}},
		{name: "--journal-size", args: []string{"--journal-size", "50"}, want: func(c *Config) { c.JournalSize = 50 }},
		{name: "--seed repeated and --snapshot-max-bytes", args: []string{"--seed", "a.json", "--seed", "b.json,c.json", "--snapshot-max-bytes", "2097152"},
			want: func(c *Config) { c.Seed, c.SnapshotMaxBytes = []string{"a.json", "b.json", "c.json"}, 2<<20 }},
		{name: "seed list in the file", file: "seed: [demo.json]\nsnapshot_max_bytes: 1048577\n",
			want: func(c *Config) { c.Seed, c.SnapshotMaxBytes = []string{"demo.json"}, 1<<20+1 }},
		{name: "negative --snapshot-max-bytes", args: []string{"--snapshot-max-bytes", "-1"}, wantErr: []string{"--snapshot-max-bytes: -1 must not be negative"}},
		{name: "--no-default-tenant", args: []string{"--no-default-tenant"}, want: func(c *Config) { c.DefaultTenant = ptrTo(false) }},
		{name: "default_tenant: false in the file", file: "default_tenant: false\n", want: func(c *Config) { c.DefaultTenant = ptrTo(false) }},
		{name: "PAYSANDBOX_DEFAULT_TENANT=false", env: map[string]string{"PAYSANDBOX_DEFAULT_TENANT": "false"}, want: func(c *Config) { c.DefaultTenant = ptrTo(false) }},
		{name: "zero attempt ttl", args: []string{"--attempt-ttl", "0s"}, wantErr: []string{"--attempt-ttl: 0s must be positive"}},
		{name: "bad webhook url", env: map[string]string{"PAYSANDBOX_WEBHOOK_URL": "ftp://x"}, wantErr: []string{"PAYSANDBOX_WEBHOOK_URL: "}},
		{name: "empty addr", args: []string{"--addr", ""}, wantErr: []string{"addr"}},
		{name: "every problem at once", args: []string{"--fsync", "x", "--log-format", "y"}, wantErr: []string{"--fsync", "--log-format"}},
		{name: "unknown scope", file: "tenants:\n  - id: shop\n    api_keys:\n      - key: k\n        scopes: [transactions:everything]\n",
			wantErr: []string{"tenants[0].api_keys[0].scopes in ", "transactions:everything"}},
		{name: "tenant without keys", file: "tenants:\n  - id: shop\n", wantErr: []string{"tenants[0].api_keys"}},
		{name: "bad tenant id", file: "tenants:\n  - id: 'shop one'\n    api_keys: [{key: k}]\n", wantErr: []string{"tenants[0].id"}},
		{name: "tenant id of the default tenant", file: "tenants:\n  - id: default\n    api_keys: [{key: k}]\n", wantErr: []string{"tenants[0].id"}},
		{name: "key used twice", file: "tenants:\n  - id: a\n    api_keys: [{key: k}]\n  - id: b\n    api_keys: [{key: k}]\n", wantErr: []string{"tenants[1].api_keys[0].key"}},
		{name: "the default key taken", file: "tenants:\n  - id: a\n    api_keys: [{key: sandbox-api-key}]\n", wantErr: []string{"tenants[0].api_keys[0].key"}},
		{name: "bad tenant webhook url", file: "tenants:\n  - id: a\n    webhook_url: nope\n    api_keys: [{key: k}]\n", wantErr: []string{"tenants[0].webhook_url"}},
		{name: "--webhook-allow repeated and comma-separated", args: []string{"--webhook-allow", "hooks.example,10.0.0.0/8", "--webhook-allow", "192.168.1.7"},
			want: func(c *Config) { c.WebhookAllow = []string{"hooks.example", "10.0.0.0/8", "192.168.1.7"} }},
		{name: "PAYSANDBOX_WEBHOOK_ALLOW comma-separated", env: map[string]string{"PAYSANDBOX_WEBHOOK_ALLOW": "hooks.example,10.0.0.0/8"},
			want: func(c *Config) { c.WebhookAllow = []string{"hooks.example", "10.0.0.0/8"} }},
		{name: "webhook_allow list in the file", file: "webhook_allow: [hooks.example, 10.0.0.0/8]\n",
			want: func(c *Config) { c.WebhookAllow = []string{"hooks.example", "10.0.0.0/8"} }},
		{name: "a bad webhook_allow entry", env: map[string]string{"PAYSANDBOX_WEBHOOK_ALLOW": "hooks.example,https://x.example/"},
			wantErr: []string{`PAYSANDBOX_WEBHOOK_ALLOW: "https://x.example/" is not a host name, an IP address or a CIDR`}},
		{name: "--allowed-host repeated and comma-separated", args: []string{"--allowed-host", "sandbox.example,10.0.0.5", "--allowed-host", "[fd00::1]"},
			want: func(c *Config) { c.AllowedHost = []string{"sandbox.example", "10.0.0.5", "[fd00::1]"} }},
		{name: "PAYSANDBOX_ALLOWED_HOST comma-separated", env: map[string]string{"PAYSANDBOX_ALLOWED_HOST": "a.example,b.example"},
			want: func(c *Config) { c.AllowedHost = []string{"a.example", "b.example"} }},
		{name: "allowed_host in the file", file: "allowed_host: [sandbox.example]\n", want: func(c *Config) { c.AllowedHost = []string{"sandbox.example"} }},
		{name: "a bad allowed_host entry", args: []string{"--allowed-host", "https://sandbox.example:8443"},
			wantErr: []string{`--allowed-host: "https://sandbox.example:8443" must be a host name or an IP address, without scheme, port or path`}},
		{name: "an addr without a port", args: []string{"--addr", "127.0.0.1"}, wantErr: []string{`--addr: "127.0.0.1" is not HOST:PORT`}},
		{name: "--trusted-proxy", args: []string{"--trusted-proxy", "10.0.0.0/8,192.168.0.0/16"},
			want: func(c *Config) { c.TrustedProxy = []string{"10.0.0.0/8", "192.168.0.0/16"} }},
		{name: "PAYSANDBOX_TRUSTED_PROXY=none", env: map[string]string{"PAYSANDBOX_TRUSTED_PROXY": "none"},
			want: func(c *Config) { c.TrustedProxy = []string{"none"} }},
		{name: "trusted_proxy in the file", file: "trusted_proxy: [172.16.0.0/12]\n", want: func(c *Config) { c.TrustedProxy = []string{"172.16.0.0/12"} }},
		{name: "a bad trusted_proxy entry", args: []string{"--trusted-proxy", "proxy.example"}, wantErr: []string{`--trusted-proxy: "proxy.example" is not a CIDR`}},
		{name: "credentials in webhook_url", env: map[string]string{"PAYSANDBOX_WEBHOOK_URL": "https://u:p@hooks.example/x"},
			wantErr: []string{`PAYSANDBOX_WEBHOOK_URL: "https://u:p@hooks.example/x" must not carry credentials (user:pass@)`}},
		{name: "credentials in a tenant webhook_url", file: "tenants:\n  - id: a\n    webhook_url: http://u:p@h.example/\n    api_keys: [{key: k}]\n",
			wantErr: []string{"tenants[0].webhook_url", "must not carry credentials"}},
		{name: "--debug-addr", args: []string{"--debug-addr", "127.0.0.1:6060"}, want: func(c *Config) { c.DebugAddr = "127.0.0.1:6060" }},
		{name: "debug addr from env", env: map[string]string{"PAYSANDBOX_DEBUG_ADDR": "[::1]:6060"}, want: func(c *Config) { c.DebugAddr = "[::1]:6060" }},
		{name: "a debug addr other machines reach", args: []string{"--debug-addr", "0.0.0.0:6060"},
			wantErr: []string{`--debug-addr: "0.0.0.0:6060" is not a loopback address: the profiler shows the process's memory`}},
		{name: "a debug addr of every interface in the file", file: "debug_addr: \":6060\"\n", wantErr: []string{"debug_addr in ", `: ":6060" is not a loopback address`}},
		{name: "positional argument", args: []string{"extra"}, wantErr: []string{"extra"}},
		{name: "unknown flag", args: []string{"--port", "8080"}, wantErr: []string{"port"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PAYSANDBOX_CONFIG", "") // isolate from the environment
			os.Unsetenv("PAYSANDBOX_CONFIG")
			args := tc.args
			if tc.file != "" {
				p := writeConfig(t, tc.file)
				if tc.env["PAYSANDBOX_CONFIG"] == "<file>" {
					tc.env["PAYSANDBOX_CONFIG"] = p
				} else {
					args = append([]string{"--config", p}, args...)
				}
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var got *serveOptions
			cmd := newServeCmd(func(o *serveOptions) error { got = o; return nil })
			cmd.SetArgs(args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tc.wantErr != nil {
				require.Error(t, err)
				for _, s := range tc.wantErr {
					assert.Contains(t, err.Error(), s)
				}
				assert.Nil(t, got, "runF is not called")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			want := defaultConfig()
			tc.want(&want)
			assert.Equal(t, want, got.Config)
		})
	}
}

func TestVersionCommand(t *testing.T) {
	t.Run("version command", func(t *testing.T) {
		var out, errOut bytes.Buffer
		cmd := newVersionCmd()
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(nil)
		require.NoError(t, cmd.Execute())
		assert.Equal(t, "paysandbox dev (commit unknown, built unknown, "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")\n", out.String())
		assert.Empty(t, errOut.String())
	})
	t.Run("through the root", func(t *testing.T) {
		var out, errOut bytes.Buffer
		root := newRootCmd(&out, &errOut)
		root.SetArgs([]string{"version"})
		require.NoError(t, root.Execute())
		assert.Equal(t, "paysandbox dev (commit unknown, built unknown, "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")\n", out.String())
	})
	t.Run("no arguments", func(t *testing.T) {
		var out, errOut bytes.Buffer
		root := newRootCmd(&out, &errOut)
		root.SetArgs([]string{"version", "extra"})
		assert.Error(t, root.Execute())
		assert.Empty(t, out.String())
	})
}

func ptrTo[T any](v T) *T { return &v }

// TestConfigKeysFromTags: the per-key checks see every scalar key of
// Config through its mapstructure tag (a key added there is checked and
// named by its source with no list to edit); Config and the table of
// settings (configKeys) have the same keys; every serve flag comes from the
// table and reports a bad value with the rest.
func TestConfigKeysFromTags(t *testing.T) {
	kinds := map[string]configKind{}
	for _, k := range typedKeys() {
		kinds[k.name] = k.kind
	}
	var table []string
	for _, k := range configKeys {
		if k.Key != "" {
			table = append(table, k.Key)
		}
		if k.Key != "" && k.Key != "tenants" {
			assert.Contains(t, kinds, k.Key, "a row of configKeys without a checked key of Config")
		}
	}
	assert.ElementsMatch(t, tagsOf(reflect.TypeFor[Config]()), table, "Config's keys are the table's")
	assert.Equal(t, kindDuration, kinds["request_timeout"])
	assert.Equal(t, kindInteger, kinds["journal_size"])
	assert.Equal(t, kindBoolean, kinds["default_tenant"])
	assert.Equal(t, kindString, kinds["fsync"])
	cmd := newServeCmd(nil)
	flags := map[string]bool{}
	for _, k := range configKeys {
		flags[k.Flag] = k.Flag != ""
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		assert.True(t, flags[f.Name], "--%s is no row of configKeys", f.Name)
		assert.IsType(t, &lenientValue{}, f.Value, "--%s reports a bad value with the rest", f.Name)
	})
}

// TestFirst6DigitsOptIn: first6Digits is null unless the tenant opted in
// (config file tenants: first6_digits: true).
func TestFirst6DigitsOptIn(t *testing.T) {
	cfg := testConfig()
	cfg.Tenants = []TenantConfig{{ID: "binshop", APIKeys: []APIKeyConfig{{Key: "binshop-key"}}, First6Digits: true}}
	a := startApp(t, cfg)
	b := a.as("binshop-key")
	tok := b.session(map[string]any{"orderId": "o-1", "currencyCode": "EUR", "amount": 1000, "customerId": "c-1"})
	r := b.tokenize(tok, "4111111111111111")
	apitest.AssertGolden(t, "tokenize_first6", r.Body)
	assert.Equal(t, "411111", r.JSON["paymentInstrumentData"].(map[string]any)["first6Digits"])

	v := b.must(200, "POST", "/payment-instruments/"+r.Str("token")+"/vault", map[string]any{"customerId": "c-1"})
	assert.Equal(t, "411111", v.JSON["paymentMethodData"].(map[string]any)["first6Digits"])
	l := b.must(200, "GET", "/payment-instruments?customer_id=c-1", nil)
	assert.Equal(t, "411111", l.JSON["data"].([]any)[0].(map[string]any)["paymentMethodData"].(map[string]any)["first6Digits"])

	t.Run("the default tenant has not opted in", func(t *testing.T) {
		tok := a.session(map[string]any{"orderId": "o-1"})
		d := a.tokenize(tok, "4111111111111111").JSON["paymentInstrumentData"].(map[string]any)
		assert.Nil(t, d["first6Digits"])
	})
}

// TestCreateTenantAdminKey: serve's admin_key guards POST /_sandbox/tenants.
func TestCreateTenantAdminKey(t *testing.T) {
	cfg := testConfig()
	cfg.AdminKey = "let-me-in"
	a := startApp(t, cfg)
	tests := []struct {
		name   string
		header string
		status int
	}{
		{name: "missing", header: "X-Admin-Key:", status: 401},
		{name: "wrong", header: "X-Admin-Key: let-me-out", status: 401},
		{name: "a tenant's API key is not the admin key", header: "X-Admin-Key: sandbox-api-key", status: 401},
		{name: "prefix of the key", header: "X-Admin-Key: let-me", status: 401},
		{name: "right", header: "X-Admin-Key: let-me-in", status: 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := a.req("POST", "/_sandbox/tenants", map[string]any{}, tc.header)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.status == 401 {
				assert.Equal(t, "Unauthorized", r.ErrorID())
				assert.Equal(t, r.Header.Get("X-Request-Id"), r.Err()["diagnosticsId"])
			}
		})
	}
	t.Run("the admin key is checked before the body", func(t *testing.T) {
		r := a.req("POST", "/_sandbox/tenants", "{", "X-Admin-Key: nope")
		require.Equal(t, 401, r.Status, "%s", r.Body)
	})
	t.Run("without admin_key no key is needed", func(t *testing.T) {
		b := newTestApp(t)
		b.must(201, "POST", "/_sandbox/tenants", nil, "X-API-KEY:", "X-Admin-Key:")
	})
}

// TestTenantScopesFromConfig: a config file tenant's keys get the scopes
// listed for them (all when none are).
func TestTenantScopesFromConfig(t *testing.T) {
	cfg := testConfig()
	cfg.Tenants = []TenantConfig{{ID: "shop", APIKeys: []APIKeyConfig{
		{Key: "shop-read", Scopes: []string{"transactions:retrieve"}},
		{Key: "shop-all"},
	}}}
	b := startApp(t, cfg)
	b.as("shop-read").must(200, "GET", "/payments", nil)
	r := b.as("shop-read").req("POST", "/client-session", map[string]any{})
	assert.Equal(t, 403, r.Status, "%s", r.Body)
	tok := b.as("shop-all").session(map[string]any{"orderId": "o"})
	assert.Equal(t, 400, b.req("GET", "/client-session?clientToken="+tok, nil).Status, "the default tenant cannot see it")
}
