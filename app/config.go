package app

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/store"
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

	// Limits (docs/limits.md).
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	MaxConnections    int           `mapstructure:"max_connections"`
	MaxWaitsPerTenant int           `mapstructure:"max_waits_per_tenant"`
	ShutdownTimeout   time.Duration `mapstructure:"shutdown_timeout"`
	// Webhook delivery (docs/webhooks.md): receiver timeout and per-tenant retention.
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
	// DebugAddr is where Go's profiler (net/http/pprof) answers, on a
	// listener of its own (profiler.go): a loopback HOST:PORT only, since
	// its pages expose the process's memory, goroutines and command line.
	// Empty: off.
	DebugAddr string `mapstructure:"debug_addr"`
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
// timeouts, caps, journal, fsync, logging, the instance name, the trace
// endpoint and the profiler's address.
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
		bad("tenant_idle_close: %s must not be negative (0: the default, %s)", c.TenantIdleClose, ShortDuration(store.DefaultIdleClose))
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
	if c.DebugAddr != "" {
		if _, _, err := net.SplitHostPort(c.DebugAddr); err != nil {
			bad("debug_addr: %q is not HOST:PORT (127.0.0.1:6060 or [::1]:6060)", c.DebugAddr)
		} else if !loopbackAddr(c.DebugAddr) {
			bad("debug_addr: %q is not a loopback address: the profiler shows the process's memory and command line, so it listens on this machine only (127.0.0.1:PORT, [::1]:PORT or localhost:PORT)", c.DebugAddr)
		}
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

// ShortDuration writes d in the largest of h, m and s that counts it in a
// whole number of at least 2 (168h, 15m, 90s, 60s), else as Go does.
func ShortDuration(d time.Duration) string {
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
