package simulator

import (
	"fmt"
	"net/url"
	"slices"
	"time"
)

// Scope is a permission of an API key.
type Scope string

// The scopes of SANDBOX.md section 3.
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

// DefaultTenantID and the default tenant's credentials (SANDBOX.md section 2).
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
	// WebhookChaos is the tenant's delivery chaos (nil: off).
	WebhookChaos *WebhookChaos `json:"webhookChaos,omitempty"`
	ClockOffset  time.Duration `json:"clockOffset"`
	// First6Digits opts in to first6Digits on card data (null otherwise).
	First6Digits bool `json:"first6Digits,omitempty"`
	// FromConfig marks tenants that the config file (re)defines at each start.
	FromConfig bool      `json:"fromConfig,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	// ExpiresAt, when set, is when the tenant and its data are deleted (tenant clock).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Scenarios is the tenant's own rules document (PUT /_sandbox/scenarios);
	// "" means the server's rules. Reset keeps it.
	Scenarios string `json:"scenarios,omitempty"`
	// Next is the tenant's pending one-shot (POST /_sandbox/scenarios/next);
	// nil when none. Reset clears it.
	Next *OneShot `json:"next,omitempty"`
}

// CheckWebhookURL is the rule for a webhook endpoint: empty (none), or an
// absolute http(s) URL.
func CheckWebhookURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

// Now is the tenant's clock: base time plus the tenant's offset, normalised.
func (t *Tenant) Now(c Clock) time.Time { return norm(c.Now().Add(t.ClockOffset)) }

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
