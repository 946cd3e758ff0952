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
	"github.com/paysandbox/paysandbox/simulator/store"
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

// configKey is one row of configKeys, the one table of serve's settings.
type configKey struct {
	// Key is the config file's key; PAYSANDBOX_ and Key upper-cased is its
	// environment variable (envName). "" for --config, which names the
	// file and is no key of it.
	Key string
	// Flag is the flag's name; "" for a key no flag sets. A flag "no-KEY"
	// (Off) sets a boolean key that defaults to true to false.
	Flag string
	Off  bool
	// Default is what serve uses when no source sets the key; its type is
	// the flag's: string, []string, time.Duration, int, int64 or bool
	// (tenants, set by the file only, is a list of objects).
	Default any
	// Usage is the flag's help and the docs' meaning; More is added to it
	// in the docs only.
	Usage, More string
	// Shown replaces the default's value in the docs (for a "" that means
	// something).
	Shown string
	// FileOnly: only the config file sets the key (no environment
	// variable; a structured value).
	FileOnly bool
}

// configKeys is the one table of serve's settings: the flags (serveFlags),
// viper's defaults (loadConfig), the config keys and environment variables
// and the table of docs/configuration.md (go generate) are all made from
// it. Config has one field per key (TestConfigKeysFromTags). Defaults that
// a component applies to a zero value are the component's constants, read
// here. Rows with a flag come in the order of serve --help's declaration.
var configKeys = []configKey{
	{Key: "addr", Flag: "addr", Default: app.DefaultAddr, Usage: "listen address: loopback by default (127.0.0.1 and [::1]); 0.0.0.0:8080 or :8080 listens on every interface, so other machines reach it"},
	{Key: "allowed_host", Flag: "allowed-host", Default: []string{}, Usage: "Host names a loopback-bound server answers besides localhost, 127.0.0.1 and [::1], e.g. a reverse proxy's public name (repeat or comma-separate)"},
	{Key: "db", Flag: "db", Default: "./data/paysandbox.db", Usage: "the catalog file (created if missing), each tenant's data in its own file in PATH.tenants/; :memory: keeps nothing"},
	{Key: "scenarios", Flag: "scenarios", Default: "", Shown: "(built in)", Usage: "scenarios YAML file replacing the built-in one",
		More: "; a missing or invalid file stops the start with every problem as `file:line: sentence`; `SIGHUP` reloads it (a bad file is logged and the old rules stay)"},
	{Flag: "config", Default: "", Usage: "config file (YAML)"},
	{Key: "request_timeout", Flag: "request-timeout", Default: 90 * time.Second, Usage: "cut merchant and client requests with 504 after this long",
		More: "; the work goes on. Accepts milliseconds (`250ms`) for CI; `0` disables"},
	{Key: "attempt_ttl", Flag: "attempt-ttl", Default: service.DefaultAttemptTTL, Usage: "how long a payment attempt awaits approval (tenant clock)"},
	{Key: "fsync", Flag: "fsync", Default: store.FsyncEverySecond, Usage: "store durability: always | everysecond | never",
		More: "; with `everysecond` each commit is written to the file before the response, so `kill -9` loses nothing (only a power cut can lose the last second)"},
	{Key: "tenant_idle_close", Flag: "tenant-idle-close", Default: store.DefaultIdleClose, Usage: "close a tenant's data file after this long unused, unless work is due within it (wall clock; :memory: never closes)"},
	{Key: "max_open_tenants", Flag: "max-open-tenants", Default: store.DefaultMaxOpen, Usage: "soft bound on open tenant data files: past it the least recently used idle ones close (none is refused)"},
	{Key: "admin_key", Flag: "admin-key", Default: "", Usage: "when set, POST /_sandbox/tenants requires it in X-Admin-Key"},
	{Key: "webhook_url", Flag: "webhook-url", Default: "", Usage: "webhook URL of the default tenant"},
	{Key: "webhook_version", Flag: "webhook-version", Default: "", Usage: "webhook body version (2.1, 2.2, 2.3 or 2.4) of the default tenant, of config tenants without their own and of tenants created without one (unset: each tenant keeps its own; new ones get 2.4)"},
	{Key: "log_format", Flag: "log-format", Default: "text", Usage: "log format: text | json",
		More: "; one line per request: method, path, status, latency, tenant, and errorId + diagnosticsId on errors"},
	{Key: "log_level", Flag: "log-level", Default: "info", Usage: "log level: debug | info | warn | error"},

	{Key: "read_timeout", Flag: "read-timeout", Default: httpapi.DefaultReadTimeout, Usage: "a request's headers and body must arrive within this (0 disables)",
		More: ", counted from its first byte; long-polls and held requests are not cut once the body is in"},
	{Key: "idle_timeout", Flag: "idle-timeout", Default: httpapi.DefaultIdleTimeout, Usage: "close keep-alive connections idle this long"},
	{Key: "max_connections", Flag: "max-connections", Default: httpapi.DefaultMaxConnections, Usage: "open connections at most; more are answered 429 and closed at once"},
	{Key: "max_waits_per_tenant", Flag: "max-waits-per-tenant", Default: service.DefaultMaxHeldPerTenant, Usage: "open long-polls and event streams per tenant at most; more are 429"},
	{Key: "shutdown_timeout", Flag: "shutdown-timeout", Default: httpapi.DefaultShutdownTimeout, Usage: "on SIGTERM, the whole stop takes this long at most (plus about a second): in-flight requests first, then the trace exporter's flush gets what is left"},
	{Key: "default_tenant", Flag: "no-default-tenant", Off: true, Default: true, Usage: "do not create the default tenant; its public key sandbox-api-key stops answering (config default_tenant: false)",
		More: "; on a store that has it from an earlier start its key is removed (its data stays)"},
	{Key: "journal_size", Flag: "journal-size", Default: httpapi.DefaultJournalSize, Usage: "requests the journal (GET /_sandbox/requests) keeps per tenant"},
	{Key: "webhook_allow", Flag: "webhook-allow", Default: []string{}, Usage: "exact host names and IPs/CIDRs webhook endpoints may reach, each optionally with :port (hooks.example:8443, 10.0.0.0/8:8080, [fd00::/8]:443), checked when set and on the address and port dialled (repeat or comma-separate; unset: any)"},
	{Key: "trusted_proxy", Flag: "trusted-proxy", Default: []string{}, Usage: "CIDRs whose X-Forwarded-Proto/-Host/-For count for the client's scheme, host and address (repeat or comma-separate; unset: loopback and private ranges; none: no peer)"},
	{Key: "webhook_slots_per_tenant", Flag: "webhook-slots-per-tenant", Default: webhooks.DefaultSlotsPerTenant, Usage: fmt.Sprintf("webhook attempts in flight per tenant at most (a share of the %d delivery slots)", webhooks.DefaultConcurrency)},
	{Key: "instance", Flag: "instance", Default: "", Usage: "name of this instance among several behind one proxy: the credentials it issues (API keys, client and 3DS tokens, dashboard cookies, checkout links) start with NAME. and the default key is NAME.sandbox-api-key (empty: no prefix)"},
	{Key: "advance_wait", Flag: "advance-wait", Default: service.DefaultAdvanceWait, Usage: "a clock advance waits this long at most for the webhook attempts it makes due; later ones finish on their own"},
	{Key: "seed", Flag: "seed", Default: []string{}, Usage: "tenant snapshot file (paysandbox tenants export) loaded at start into its own tenant, whose key the log prints; a restart adds no tenant (repeat or comma-separate)"},
	{Key: "snapshot_max_bytes", Flag: "snapshot-max-bytes", Default: int64(httpapi.DefaultSnapshotMaxBytes), Usage: "largest tenant snapshot POST /_sandbox/tenants imports, in bytes (other request bodies stay at 1 MiB)"},
	{Key: "otel_endpoint", Flag: "otel-endpoint", Default: "", Usage: "export OpenTelemetry traces over OTLP/HTTP to this URL (http://collector:4318 sends to its /v1/traces; unset: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else no tracing)"},
	{Key: "debug_addr", Flag: "debug-addr", Default: "", Shown: "(off)", Usage: "serve Go's profiler (net/http/pprof, /debug/pprof/) on this loopback HOST:PORT, a listener of its own, e.g. 127.0.0.1:6060 (a non-loopback address is refused)",
		More: "; [docs/performance.md](performance.md#profile-a-running-sandbox) shows how to take a CPU profile"},

	{Key: "tenants", Default: []any{}, FileOnly: true, Usage: "tenants defined in the config file, (re)applied at every start (see [Tenants in the config file](#tenants-in-the-config-file))"},
	{Key: "webhook_retention_age", Default: service.DefaultRetention.MaxAge, Usage: "how long delivered and exhausted webhook events are kept, on the tenant's clock"},
	{Key: "webhook_retention_count", Default: service.DefaultRetention.Keep, Usage: "delivered and exhausted webhook events kept per tenant (pending ones are never pruned)"},
	{Key: "webhook_timeout", Default: webhooks.DefaultTimeout, Usage: "how long a webhook receiver may take to answer a delivery"},
}

// envName is the environment variable of a row: PAYSANDBOX_ and its key
// (or, for --config, its flag) upper-cased with "_" for "-".
func (k configKey) envName() string {
	name := k.Key
	if name == "" {
		name = k.Flag
	}
	return "PAYSANDBOX_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// lookupKey is the row of key (ok false for none).
func lookupKey(key string) (configKey, bool) {
	for _, k := range configKeys {
		if k.Key == key {
			return k, true
		}
	}
	return configKey{}, false
}

// defaultOf is key's default (nil for no key).
func defaultOf(key string) any {
	k, _ := lookupKey(key)
	return k.Default
}

// serveFlags declares the flags of serve from configKeys; each but --config
// is also a config key and PAYSANDBOX_<KEY>.
func serveFlags(fs *pflag.FlagSet) {
	for _, k := range configKeys {
		if k.Flag == "" {
			continue
		}
		switch d := k.Default.(type) {
		case string:
			fs.String(k.Flag, d, k.Usage)
		case []string:
			fs.StringSlice(k.Flag, d, k.Usage)
		case time.Duration:
			fs.Duration(k.Flag, d, k.Usage)
		case int:
			fs.Int(k.Flag, d, k.Usage)
		case int64:
			fs.Int64(k.Flag, d, k.Usage)
		case bool:
			fs.Bool(k.Flag, d && !k.Off, k.Usage)
		default:
			panic(fmt.Sprintf("config key %s: no flag of type %T", k.Key, k.Default)) // TestConfigTableGenerator covers every row
		}
	}
}

// loadConfig resolves the configuration with viper from flags, env, file and defaults.
func loadConfig(fs *pflag.FlagSet, env func(string) (string, bool)) (Config, error) {
	v := viper.New()
	for _, k := range configKeys {
		if k.Key != "" {
			v.SetDefault(k.Key, k.Default)
		}
	}
	v.SetEnvPrefix("PAYSANDBOX") // PAYSANDBOX_<KEY>, as envName names it
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	for _, k := range configKeys {
		if f := fs.Lookup(k.Flag); k.Key != "" && f != nil && !k.Off {
			_ = v.BindPFlag(k.Key, f)
		}
	}
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
	for _, k := range configKeys {
		if !k.Off {
			continue
		}
		if off, _ := fs.GetBool(k.Flag); off {
			v.Set(k.Key, false)
		}
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
