package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Config is the typed configuration of `serve` (app.Config), which
// loadConfig resolves from flags, env PAYSANDBOX_*, the config file and
// the defaults, in that order of precedence.
type (
	Config       = app.Config
	TenantConfig = app.TenantConfig
	APIKeyConfig = app.APIKeyConfig
)

// defaults: every key has one (env-only keys are otherwise lost on Unmarshal).
var defaults = map[string]any{
	"addr":              app.DefaultAddr,
	"allowed_host":      []string{},
	"db":                "./data/paysandbox.db",
	"scenarios":         "",
	"request_timeout":   "90s",
	"attempt_ttl":       "15m",
	"fsync":             "everysecond",
	"tenant_idle_close": "5m",
	"max_open_tenants":  256,
	"admin_key":         "",
	"webhook_url":       "",
	"webhook_version":   "",
	"log_format":        "text",
	"log_level":         "info",
	"tenants":           []any{},

	"read_timeout":         "10s",
	"idle_timeout":         "60s",
	"max_connections":      4096,
	"max_waits_per_tenant": 64,
	"shutdown_timeout":     "5s",
	// webhook delivery
	"webhook_timeout":          "10s",
	"webhook_retention_count":  1000,
	"webhook_retention_age":    "168h",
	"webhook_slots_per_tenant": 8,
	"advance_wait":             "30s",
	"default_tenant":           true,
	"journal_size":             500,
	"webhook_allow":            []string{},
	"trusted_proxy":            []string{},
	"instance":                 "",
	"seed":                     []string{},
	"snapshot_max_bytes":       httpapi.DefaultSnapshotMaxBytes,
	"otel_endpoint":            "",
}

// serveFlags declares the flags of serve; each is also a config key and PAYSANDBOX_<NAME>.
func serveFlags(fs *pflag.FlagSet) {
	fs.String("addr", app.DefaultAddr, "listen address: loopback by default (127.0.0.1 and [::1]); 0.0.0.0:8080 or :8080 listens on every interface, so other machines reach it")
	fs.StringSlice("allowed-host", nil, "Host names a loopback-bound server answers besides localhost, 127.0.0.1 and [::1], e.g. a reverse proxy's public name (repeat or comma-separate)")
	fs.String("db", "./data/paysandbox.db", "the catalog file (created if missing), each tenant's data in its own file in PATH.tenants/; :memory: keeps nothing")
	fs.String("scenarios", "", "scenarios YAML file replacing the built-in one")
	fs.String("config", "", "config file (YAML)")
	fs.Duration("request-timeout", 90*time.Second, "cut merchant and client requests with 504 after this long")
	fs.Duration("attempt-ttl", 15*time.Minute, "how long a payment attempt awaits approval (tenant clock)")
	fs.String("fsync", "everysecond", "store durability: always | everysecond | never")
	fs.Duration("tenant-idle-close", 5*time.Minute, "close a tenant's data file after this long unused, unless work is due within it (wall clock; :memory: never closes)")
	fs.Int("max-open-tenants", 256, "soft bound on open tenant data files: past it the least recently used idle ones close (none is refused)")
	fs.String("admin-key", "", "when set, POST /_sandbox/tenants requires it in X-Admin-Key")
	fs.String("webhook-url", "", "webhook URL of the default tenant")
	fs.String("webhook-version", "", "webhook body version (2.1, 2.2, 2.3 or 2.4) of the default tenant, of config tenants without their own and of tenants created without one (unset: each tenant keeps its own; new ones get 2.4)")
	fs.String("log-format", "text", "log format: text | json")
	fs.String("log-level", "info", "log level: debug | info | warn | error")

	fs.Duration("read-timeout", 10*time.Second, "a request's headers and body must arrive within this (0 disables)")
	fs.Duration("idle-timeout", 60*time.Second, "close keep-alive connections idle this long")
	fs.Int("max-connections", 4096, "open connections at most; more are answered 429 and closed at once")
	fs.Int("max-waits-per-tenant", 64, "open long-polls and event streams per tenant at most; more are 429")
	fs.Duration("shutdown-timeout", 5*time.Second, "on SIGTERM, the whole stop takes this long at most (plus about a second): in-flight requests first, then the trace exporter's flush gets what is left")
	fs.Bool("no-default-tenant", false, "do not create the default tenant; its public key sandbox-api-key stops answering (config default_tenant: false)")
	fs.Int("journal-size", 500, "requests the journal (GET /_sandbox/requests) keeps per tenant")
	fs.StringSlice("webhook-allow", nil, "exact host names and IPs/CIDRs webhook endpoints may reach, each optionally with :port (hooks.example:8443, 10.0.0.0/8:8080, [fd00::/8]:443), checked when set and on the address and port dialled (repeat or comma-separate; unset: any)")
	fs.StringSlice("trusted-proxy", nil, "CIDRs whose X-Forwarded-Proto/-Host/-For count for the client's scheme, host and address (repeat or comma-separate; unset: loopback and private ranges; none: no peer)")
	fs.Int("webhook-slots-per-tenant", webhooks.DefaultSlotsPerTenant, fmt.Sprintf("webhook attempts in flight per tenant at most (a share of the %d delivery slots)", webhooks.DefaultConcurrency))
	fs.String("instance", "", "name of this instance among several behind one proxy: the credentials it issues (API keys, client and 3DS tokens, dashboard cookies, checkout links) start with NAME. and the default key is NAME.sandbox-api-key (empty: no prefix)")
	fs.Duration("advance-wait", service.DefaultAdvanceWait, "a clock advance waits this long at most for the webhook attempts it makes due; later ones finish on their own")
	fs.StringSlice("seed", nil, "tenant snapshot file (paysandbox tenants export) loaded at start into its own tenant, whose key the log prints; a restart adds no tenant (repeat or comma-separate)")
	fs.Int64("snapshot-max-bytes", httpapi.DefaultSnapshotMaxBytes, "largest tenant snapshot POST /_sandbox/tenants imports, in bytes (other request bodies stay at 1 MiB)")
	fs.String("otel-endpoint", "", "export OpenTelemetry traces over OTLP/HTTP to this URL (http://collector:4318 sends to its /v1/traces; unset: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else no tracing)")
}

// loadConfig resolves the configuration with viper from flags, env, file and defaults.
func loadConfig(fs *pflag.FlagSet, env func(string) (string, bool)) (Config, error) {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("PAYSANDBOX")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "config" && f.Name != "help" && f.Name != "no-default-tenant" {
			_ = v.BindPFlag(strings.ReplaceAll(f.Name, "-", "_"), f)
		}
	})
	cfgFile, _ := fs.GetString("config")
	if !fs.Changed("config") && env != nil {
		if e, ok := env("PAYSANDBOX_CONFIG"); ok {
			cfgFile = e
		}
	}
	if cfgFile != "" {
		v.SetConfigFile(cfgFile)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return Config{}, fmt.Errorf("config: reading %s: %w", cfgFile, err)
		}
	}
	if off, _ := fs.GetBool("no-default-tenant"); off {
		v.Set("default_tenant", false)
	}
	// Every problem is collected before any is reported (config_values.go):
	// values that do not parse, unknown keys of the file (a typo is an
	// error, not a silent default), then Validate's rules.
	src := configSources{fs: fs, env: env, v: v, file: cfgFile}
	errs, bad := checkValues(src)
	errs = append(errs, unknownKeyProblems(src)...)
	var cfg Config
	if err := v.Unmarshal(&cfg); err != nil {
		return Config{}, joinProblems(append(errs, fmt.Errorf("%s: %w", src.name("tenants"), err)))
	}
	errs = append(errs, renameProblems(cfg.Validate(), src, bad)...)
	if len(errs) > 0 {
		return Config{}, joinProblems(errs)
	}
	return cfg, nil
}
