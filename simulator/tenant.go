package simulator

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Scope is a permission of an API key.
type Scope string

// The scopes of docs/api.md (Routes and scopes).
const (
	ScopeClientTokensWrite      Scope = "client_tokens:write"
	ScopeTransactionsAuthorize  Scope = "transactions:authorize"
	ScopeTransactionsRetrieve   Scope = "transactions:retrieve"
	ScopeTransactionsCapture    Scope = "transactions:capture"
	ScopeTransactionsCancel     Scope = "transactions:cancel"
	ScopeTransactionsRefund     Scope = "transactions:refund"
	ScopePaymentInstrumentRead  Scope = "payment_instrument:read"
	ScopePaymentInstrumentWrite Scope = "payment_instrument:write"
)

// AllScopes is every scope, the default of a new key.
var AllScopes = []Scope{
	ScopeClientTokensWrite, ScopeTransactionsAuthorize, ScopeTransactionsRetrieve,
	ScopeTransactionsCapture, ScopeTransactionsCancel, ScopeTransactionsRefund,
	ScopePaymentInstrumentRead, ScopePaymentInstrumentWrite,
}

// ValidScope reports whether s is a known scope.
func ValidScope(s string) bool { return slices.Contains(AllScopes, Scope(s)) }

// APIKey is one key of a tenant and what it may do.
type APIKey struct {
	Key    string  `json:"key"`
	Scopes []Scope `json:"scopes"`
}

// Has reports whether the key carries scope s.
func (k APIKey) Has(s Scope) bool { return slices.Contains(k.Scopes, s) }

// MissingScopes is what the key lacks of every scope (AllScopes), in
// AllScopes' order; empty for a key that holds every scope. Revealing or
// changing credentials and destroying data need such a key (ErrLacksScopes).
func (k APIKey) MissingScopes() []Scope {
	var out []Scope
	for _, s := range AllScopes {
		if !k.Has(s) {
			out = append(out, s)
		}
	}
	return out
}

// ErrLacksScopes is the 403 Forbidden of an action that needs a key holding
// every scope, naming the scopes the caller's key lacks (MissingScopes);
// action completes "... needs a key holding every scope" ("Rotating the
// signing secret"). The caller adds the recovery its surface offers.
func ErrLacksScopes(missing []Scope, action string) *Error {
	names := make([]string, len(missing))
	for i, s := range missing {
		names[i] = string(s)
	}
	noun := "scope"
	if len(missing) > 1 {
		noun = "scopes"
	}
	return Errorf(CodeForbidden, "The API key lacks the %s %s: %s needs a key holding every scope", noun, strings.Join(names, ", "), action)
}

// DefaultTenantID and the default tenant's credentials (docs/configuration.md).
const (
	DefaultTenantID      = "default"
	DefaultAPIKey        = "sandbox-api-key"
	DefaultSigningSecret = "sandbox-signing-secret"
)

// Tenant owns its data, clock, scenarios, webhook endpoint and secret.
type Tenant struct {
	ID            string   `json:"id"`
	APIKeys       []APIKey `json:"apiKeys"`
	SigningSecret string   `json:"signingSecret"`
	// PreviousSecret signs X-Signature-Secondary until PreviousUntil (tenant clock).
	PreviousSecret string    `json:"previousSecret,omitempty"`
	PreviousUntil  time.Time `json:"previousUntil,omitzero"`
	WebhookURL     string    `json:"webhookUrl,omitempty"`
	// WebhookVersion shapes the tenant's webhook bodies ("": the current
	// version); each event fixes the one in force when it is made.
	WebhookVersion APIVersion `json:"webhookVersion,omitempty"`
	// WebhookChaos is the tenant's delivery chaos (nil: off).
	WebhookChaos *WebhookChaos `json:"webhookChaos,omitempty"`
	ClockOffset  time.Duration `json:"clockOffset"`
	// First6Digits opts in to first6Digits on card data (null otherwise).
	First6Digits bool `json:"first6Digits,omitempty"`
	// FromConfig marks tenants that the config file (re)defines at each start.
	FromConfig bool      `json:"fromConfig,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	// ExpiresAt, when set, is when the tenant and its data are deleted, on
	// the wall clock (the base clock): the tenant's own clock never expires
	// it, so a job that advances its clock by days keeps its tenant.
	ExpiresAt time.Time `json:"wallExpiresAt,omitzero"`
	// TenantClockExpiresAt is the expiry of a record that counted its ttl on
	// the tenant's clock (deleted when base clock + ClockOffset reached it).
	// ConvertTenantExpiries turns it into ExpiresAt at start; nothing else
	// writes it.
	TenantClockExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Scenarios is the tenant's own rules document (PUT /_sandbox/scenarios);
	// "" means the server's rules. Reset keeps it.
	Scenarios string `json:"scenarios,omitempty"`
	// Next is the tenant's pending one-shot (POST /_sandbox/scenarios/next);
	// nil when none. Reset clears it.
	Next *OneShot `json:"next,omitempty"`
}

// CheckWebhookURL is the form of a webhook endpoint: empty (none), or an
// absolute http(s) URL without credentials (user:pass@ would be stored, shown
// and sent; receivers verify X-Signature-Primary instead). The error's text
// completes a sentence about the field: "url must be ...".
func CheckWebhookURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ErrNotAbsoluteURL
	}
	if u.User != nil {
		return errCredentials
	}
	return nil
}

var (
	// ErrNotAbsoluteURL is why a webhook URL that is not an absolute http(s)
	// URL is refused (completes "url ...").
	ErrNotAbsoluteURL = errors.New("must be an absolute http(s) URL")
	errCredentials    = errors.New("must not carry credentials (user:pass@): they would be stored and shown with the endpoint; verify X-Signature-Primary in the receiver instead")
)

// Now is the tenant's clock: base time plus the tenant's offset, normalised.
func (t *Tenant) Now(c Clock) time.Time { return NormTime(c.Now().Add(t.ClockOffset)) }

// WebhookAPIVersion is the version the tenant's next events are made with.
func (t *Tenant) WebhookAPIVersion() APIVersion { return t.WebhookVersion.Or() }

// Key returns the tenant's API key record for key.
func (t *Tenant) Key(key string) (APIKey, bool) {
	for _, k := range t.APIKeys {
		if k.Key == key {
			return k, true
		}
	}
	return APIKey{}, false
}

// Clone is a deep copy of t: callers may change the copy (its keys, scopes
// and chaos settings included) without touching t, which caches rely on.
func (t *Tenant) Clone() *Tenant {
	if t == nil {
		return nil
	}
	cp := *t
	cp.APIKeys = make([]APIKey, len(t.APIKeys))
	for i, k := range t.APIKeys {
		cp.APIKeys[i] = APIKey{Key: k.Key, Scopes: slices.Clone(k.Scopes)}
	}
	if t.WebhookChaos != nil {
		c := *t.WebhookChaos
		cp.WebhookChaos = &c
	}
	if t.Next != nil {
		n := *t.Next
		cp.Next = &n
	}
	return &cp
}

// MaxExpiredTenants bounds the expired-tenant records, and ExpiredTenantWindow
// is how long one is kept (wall clock, from the tenant's deletion): for that
// long the tenant's keys answer 401 saying when it expired.
const (
	MaxExpiredTenants   = 10000
	ExpiredTenantWindow = 24 * time.Hour
)

// ExpiredTenant is what remains of a tenant that its ttl deleted: enough for
// its keys to answer 401 naming the expiry. An explicitly deleted tenant
// leaves none (its keys get the plain 401).
type ExpiredTenant struct {
	TenantID string   `json:"tenantId"`
	APIKeys  []string `json:"apiKeys"`
	// ExpiredAt is the tenant's ExpiresAt; DeletedAt when the sandbox deleted
	// it (the same instant unless the server was down then). Wall clock both.
	ExpiredAt time.Time `json:"expiredAt"`
	DeletedAt time.Time `json:"deletedAt"`
}

// WebhookChaos is a tenant's delivery chaos (PUT /_sandbox/webhooks/chaos):
// Duplicate is the fraction of successful deliveries sent twice, Reorder
// releases a payment's events newest first, Delay holds each first attempt.
type WebhookChaos struct {
	Duplicate float64       `json:"duplicate,omitempty"`
	Reorder   bool          `json:"reorder,omitempty"`
	Delay     time.Duration `json:"delay,omitempty"`
	Seed      int64         `json:"seed,omitempty"`
}
