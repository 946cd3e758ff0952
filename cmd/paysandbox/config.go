package main

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/tracing"
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
	// (the tracing package): a base URL sends to its /v1/traces, a URL with a
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

// defaults: every key has one (env-only keys are otherwise lost on Unmarshal).
var defaults = map[string]any{
	"addr":              DefaultAddr,
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
	fs.String("addr", DefaultAddr, "listen address: loopback by default (127.0.0.1 and [::1]); 0.0.0.0:8080 or :8080 listens on every interface, so other machines reach it")
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
		bad("journal_size: %d is not from 0 (the default, 500) to 100000", c.JournalSize)
	}
	if c.TenantIdleClose < 0 {
		bad("tenant_idle_close: %s must not be negative (0: the default, 5m)", c.TenantIdleClose)
	}
	if c.MaxOpenTenants < 0 {
		bad("max_open_tenants: %d must not be negative (0: the default, 256)", c.MaxOpenTenants)
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
