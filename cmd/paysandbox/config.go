package main

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/internal/tracing"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Config is the typed configuration of `serve`. Precedence: flags > env
// PAYSANDBOX_* > config file (--config, YAML) > defaults. It is read once at
// start; nothing reads viper at request time.
type Config struct {
	// Addr is where serve listens: loopback by default (a loopback address
	// listens on 127.0.0.1 and [::1] both, listen.go); 0.0.0.0:PORT or
	// :PORT every interface.
	Addr string `mapstructure:"addr"`
	// AllowedHost lists the Host names a loopback-bound server answers
	// besides localhost and the loopback IPs (httpapi.LoopbackHosts).
	AllowedHost    []string      `mapstructure:"allowed_host"`
	DB             string        `mapstructure:"db"`
	Scenarios      string        `mapstructure:"scenarios"`
	RequestTimeout time.Duration `mapstructure:"request_timeout"`
	AttemptTTL     time.Duration `mapstructure:"attempt_ttl"`
	Fsync          string        `mapstructure:"fsync"`
	// TenantIdleClose: a tenant's file closes after this long unused (wall
	// clock) unless something holds it or work is due within it;
	// MaxOpenTenants is the soft bound on open tenant files (the store's
	// Options).
	TenantIdleClose time.Duration `mapstructure:"tenant_idle_close"`
	MaxOpenTenants  int           `mapstructure:"max_open_tenants"`
	AdminKey        string        `mapstructure:"admin_key"`
	WebhookURL      string        `mapstructure:"webhook_url"`
	// WebhookVersion is the webhook version of the default tenant, of
	// config tenants without their own and of tenants created without one
	// ("": each keeps its own, new ones get 2.4).
	WebhookVersion string         `mapstructure:"webhook_version"`
	LogFormat      string         `mapstructure:"log_format"`
	LogLevel       string         `mapstructure:"log_level"`
	Tenants        []TenantConfig `mapstructure:"tenants"`

	// Limits (SANDBOX.md section 12; README "Reliability").
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	MaxConnections    int           `mapstructure:"max_connections"`
	MaxWaitsPerTenant int           `mapstructure:"max_waits_per_tenant"`
	ShutdownTimeout   time.Duration `mapstructure:"shutdown_timeout"`
	// Webhook delivery (SANDBOX.md section 7): receiver timeout and per-tenant retention.
	WebhookTimeout        time.Duration `mapstructure:"webhook_timeout"`
	WebhookRetentionCount int           `mapstructure:"webhook_retention_count"`
	WebhookRetentionAge   time.Duration `mapstructure:"webhook_retention_age"`
	// WebhookSlotsPerTenant is one tenant's share of the webhook delivery
	// slots (attempts in flight; 0: the default, 8 of 64).
	WebhookSlotsPerTenant int `mapstructure:"webhook_slots_per_tenant"`
	// AdvanceWait bounds how long a clock advance waits for the webhook
	// attempts it makes due (0: the default, 30s).
	AdvanceWait time.Duration `mapstructure:"advance_wait"`
	// DefaultTenant false (--no-default-tenant) keeps the public default key
	// sandbox-api-key from answering (shared sandboxes). nil means true.
	DefaultTenant *bool `mapstructure:"default_tenant"`
	// JournalSize is how many requests the journal keeps per tenant.
	JournalSize int `mapstructure:"journal_size"`
	// WebhookAllow lists the exact host names and IPs/CIDRs webhook
	// endpoints may reach, each optionally with a port
	// (webhooks.ParseAllowEntry); empty: any.
	WebhookAllow []string `mapstructure:"webhook_allow"`
	// TrustedProxy lists the CIDRs whose X-Forwarded-* headers count for the
	// client's scheme, host and address (forwarded.Trust); empty: loopback
	// and private ranges; "none": no peer.
	TrustedProxy []string `mapstructure:"trusted_proxy"`
	// Instance names this instance among several behind one HTTP proxy:
	// every credential it issues starts with "NAME." so the proxy routes a
	// tenant's requests by it (docs/scaling.md). Empty: no prefix.
	Instance string `mapstructure:"instance"`
	// Seed lists tenant snapshots loaded at start (--seed, repeatable),
	// each into the tenant its checksum names unless that one exists.
	Seed []string `mapstructure:"seed"`
	// SnapshotMaxBytes is the largest snapshot POST /_sandbox/tenants
	// imports (its other bodies keep the 1 MiB limit).
	SnapshotMaxBytes int64 `mapstructure:"snapshot_max_bytes"`
	// OtelEndpoint is the OTLP/HTTP receiver traces are exported to
	// (internal/tracing): a base URL sends to its /v1/traces, a URL with a
	// path to that path. Empty: the standard OTEL_EXPORTER_OTLP_ENDPOINT /
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT decide; none set: no tracing.
	OtelEndpoint string `mapstructure:"otel_endpoint"`
}

// TenantConfig is a tenant defined in the config file.
type TenantConfig struct {
	ID            string         `mapstructure:"id"`
	APIKeys       []APIKeyConfig `mapstructure:"api_keys"`
	SigningSecret string         `mapstructure:"signing_secret"`
	WebhookURL    string         `mapstructure:"webhook_url"`
	// WebhookVersion overrides Config.WebhookVersion for this tenant.
	WebhookVersion string `mapstructure:"webhook_version"`
	First6Digits   bool   `mapstructure:"first6_digits"`
}

// APIKeyConfig is one key of a config tenant; no scopes means every scope.
type APIKeyConfig struct {
	Key    string   `mapstructure:"key"`
	Scopes []string `mapstructure:"scopes"`
}

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
	{Key: "addr", Flag: "addr", Default: DefaultAddr, Usage: "listen address: loopback by default (127.0.0.1 and [::1]); 0.0.0.0:8080 or :8080 listens on every interface, so other machines reach it"},
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

// shortDuration writes d in the largest of h, m and s that counts it in a
// whole number of at least 2 (168h, 15m, 90s, 60s), else as Go does.
func shortDuration(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.unit == 0 && d/u.unit >= 2 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return d.String()
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

// webhookURLs are the endpoints the configuration sets, by config key.
func (c Config) webhookURLs() (keys, urls []string) {
	if c.WebhookURL != "" {
		keys, urls = append(keys, "webhook_url"), append(urls, c.WebhookURL)
	}
	for i, t := range c.Tenants {
		if t.WebhookURL != "" {
			keys, urls = append(keys, fmt.Sprintf("tenants[%d].webhook_url", i)), append(urls, t.WebhookURL)
		}
	}
	return keys, urls
}

// DefaultAPIKey is the default tenant's key: sandbox-api-key, prefixed with
// the instance's name when it has one (so a proxy routes it like any other).
func (c Config) DefaultAPIKey() string {
	return simulator.WithInstance(c.Instance, simulator.DefaultAPIKey)
}

// DefaultTenantOn reports whether the default tenant is created.
func (c Config) DefaultTenantOn() bool { return c.DefaultTenant == nil || *c.DefaultTenant }

var tenantIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate reports every problem of the configuration at once, each as
// "key: what is wrong" (loadConfig renames key after its source: a message
// that starts with its key gets that for free).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	c.checkServer(bad)
	c.checkWebhooks(bad)
	c.checkTenants(bad)
	return errors.Join(errs...)
}

// complain records one problem of a Config (a printf-style message).
type complain func(format string, args ...any)

// checkServer complains about the server's own settings: address, db,
// timeouts, caps, journal, fsync, logging, the instance name and the trace
// endpoint.
func (c Config) checkServer(bad complain) {
	if c.Addr == "" {
		bad("addr: must not be empty")
	} else if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("addr: %q is not HOST:PORT (127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080 or :8080)", c.Addr)
	}
	for _, h := range c.AllowedHost {
		if err := checkHostName(h); err != nil {
			bad("allowed_host: %q %v", h, err)
		}
	}
	if c.DB == "" {
		bad("db: must not be empty (use :memory: to keep nothing)")
	}
	if c.RequestTimeout < 0 {
		bad("request_timeout: %s must not be negative", c.RequestTimeout)
	}
	if c.AttemptTTL <= 0 {
		bad("attempt_ttl: %s must be positive", c.AttemptTTL)
	}
	if c.ReadTimeout < 0 {
		bad("read_timeout: %s must not be negative", c.ReadTimeout)
	}
	if c.IdleTimeout < 0 {
		bad("idle_timeout: %s must not be negative", c.IdleTimeout)
	}
	if c.ShutdownTimeout < 0 {
		bad("shutdown_timeout: %s must not be negative", c.ShutdownTimeout)
	}
	if c.MaxConnections < 0 {
		bad("max_connections: %d must not be negative (0: the default)", c.MaxConnections)
	}
	if c.MaxWaitsPerTenant < 0 {
		bad("max_waits_per_tenant: %d must not be negative (0: the default)", c.MaxWaitsPerTenant)
	}
	if c.SnapshotMaxBytes < 0 {
		bad("snapshot_max_bytes: %d must not be negative (0: the default, %d)", c.SnapshotMaxBytes, httpapi.DefaultSnapshotMaxBytes)
	}
	if c.JournalSize < 0 || c.JournalSize > 100000 {
		bad("journal_size: %d is not from 0 (the default, %d) to 100000", c.JournalSize, httpapi.DefaultJournalSize)
	}
	if c.TenantIdleClose < 0 {
		bad("tenant_idle_close: %s must not be negative (0: the default, %s)", c.TenantIdleClose, shortDuration(store.DefaultIdleClose))
	}
	if c.MaxOpenTenants < 0 {
		bad("max_open_tenants: %d must not be negative (0: the default, %d)", c.MaxOpenTenants, store.DefaultMaxOpen)
	}
	switch c.Fsync {
	case "always", "everysecond", "never":
	default:
		bad("fsync: %q is not always, everysecond or never", c.Fsync)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		bad("log_format: %q is not text or json", c.LogFormat)
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level: %q is not debug, info, warn or error", c.LogLevel)
	}
	if c.Instance != "" {
		if err := simulator.CheckInstanceName(c.Instance); err != nil {
			bad("instance: %v", err)
		}
	}
	if err := tracing.CheckEndpoint(c.OtelEndpoint); err != nil {
		bad("otel_endpoint: %q %v", c.OtelEndpoint, err)
	}
}

// checkWebhooks complains about the webhook settings (URL, allow list,
// timeout, retention, slots, advance wait) and trusted_proxy, which is
// checked among them so the problems keep their order.
func (c Config) checkWebhooks(bad complain) {
	if err := simulator.CheckWebhookURL(c.WebhookURL); err != nil {
		bad("webhook_url: %q %v", c.WebhookURL, err)
	}
	if c.WebhookVersion != "" {
		if err := simulator.CheckAPIVersion(c.WebhookVersion); err != nil {
			bad("webhook_version: %q %v", c.WebhookVersion, err)
		}
	}
	if _, err := webhooks.NewGuard(c.WebhookAllow, nil); err != nil {
		bad("webhook_allow: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if _, err := forwarded.New(c.TrustedProxy); err != nil {
		bad("trusted_proxy: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if c.WebhookTimeout < 0 {
		bad("webhook_timeout: %s must not be negative", c.WebhookTimeout)
	}
	if c.WebhookRetentionCount < 0 {
		bad("webhook_retention_count: %d must not be negative", c.WebhookRetentionCount)
	}
	if c.WebhookRetentionAge < 0 {
		bad("webhook_retention_age: %s must not be negative", c.WebhookRetentionAge)
	}
	if c.WebhookSlotsPerTenant < 0 || c.WebhookSlotsPerTenant > webhooks.DefaultConcurrency {
		bad("webhook_slots_per_tenant: %d is not from 0 (the default, %d) to %d (the delivery slots in all)", c.WebhookSlotsPerTenant, webhooks.DefaultSlotsPerTenant, webhooks.DefaultConcurrency)
	}
	if c.AdvanceWait < 0 {
		bad("advance_wait: %s must not be negative", c.AdvanceWait)
	}
}

// checkTenants complains about the configured tenants: ids and API keys
// well formed and unique (the default tenant's included), scopes known,
// webhook URLs valid.
func (c Config) checkTenants(bad complain) {
	ids, keys := map[string]bool{simulator.DefaultTenantID: true}, map[string]bool{simulator.DefaultAPIKey: true}
	for i, t := range c.Tenants {
		at := fmt.Sprintf("tenants[%d]", i)
		if !tenantIDPattern.MatchString(t.ID) {
			bad("%s.id: %q must be 1-64 letters, digits, _ or -", at, t.ID)
		} else if ids[t.ID] {
			bad("%s.id: %q is defined twice (or is the default tenant)", at, t.ID)
		}
		ids[t.ID] = true
		if len(t.APIKeys) == 0 {
			bad("%s.api_keys: a tenant needs at least one key", at)
		}
		for j, k := range t.APIKeys {
			if k.Key == "" {
				bad("%s.api_keys[%d].key: must not be empty", at, j)
			} else if keys[k.Key] {
				bad("%s.api_keys[%d].key: used twice", at, j)
			}
			keys[k.Key] = true
			for _, s := range k.Scopes {
				if !simulator.ValidScope(s) {
					bad("%s.api_keys[%d].scopes: unknown scope %q", at, j, s)
				}
			}
		}
		if err := simulator.CheckWebhookURL(t.WebhookURL); err != nil {
			bad("%s.webhook_url: %q %v", at, t.WebhookURL, err)
		}
		if t.WebhookVersion != "" {
			if err := simulator.CheckAPIVersion(t.WebhookVersion); err != nil {
				bad("%s.webhook_version: %q %v", at, t.WebhookVersion, err)
			}
		}
	}
}
