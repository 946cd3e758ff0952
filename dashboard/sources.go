package dashboard

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Webhooks is the webhook log and its controls (the webhooks dispatcher).
// Every method acts for tenant t only.
type Webhooks interface {
	// Endpoint is the tenant's webhook URL ("" when none) and webhook version.
	Endpoint(t *simulator.Tenant) (WebhookEndpoint, error)
	// SetEndpoint replaces the URL and, unless version is "", the webhook
	// version; a URL that is not absolute http(s) (or is empty) or a version
	// not served is a catalogue error.
	SetEndpoint(t *simulator.Tenant, url, version string) error
	// Events lists the tenant's events, newest first; paymentID filters them.
	Events(t *simulator.Tenant, paymentID string, limit int) ([]WebhookEvent, error)
	// Replay tries event id once now.
	Replay(ctx context.Context, t *simulator.Tenant, id string) (WebhookAttempt, error)
	// DeliverNow tries every pending delivery now.
	DeliverNow(ctx context.Context, t *simulator.Tenant) (delivered, failed int, err error)
	// RotateSecret makes a new signing secret and returns it.
	RotateSecret(t *simulator.Tenant) (string, error)
}

// WebhookEndpoint is where the tenant's webhooks go and the version their
// bodies are made in.
type WebhookEndpoint struct {
	URL     string
	Version string
}

// WebhookEvent is one event with its delivery attempts.
type WebhookEvent struct {
	ID        string
	Type      string
	PaymentID string
	Status    string // PENDING, DELIVERED, EXHAUSTED
	CreatedAt time.Time
	Body      string // the exact body sent (latest attempt)
	Attempts  []WebhookAttempt
}

// WebhookAttempt is one delivery try, as it was sent and answered.
type WebhookAttempt struct {
	At         time.Time
	StatusCode int // 0 when no answer came
	Latency    time.Duration
	Error      string
	Headers    map[string]string // the headers sent
	Body       string            // the exact body sent
	Response   string            // the start of the answer's body
	Kind       string            // "" for a scheduled attempt, "replay", or "chaos: <kind>"
}

// Scenarios is the tenant's scenario rules (the scenario engine).
type Scenarios interface {
	// Rules is the YAML in force and where it comes from (file, tenant, default).
	Rules(t *simulator.Tenant) (yaml, source string, err error)
	// Apply validates and, when valid, replaces the tenant's rules. Problems
	// carry the validator's line numbers; a non-empty list means nothing changed.
	Apply(t *simulator.Tenant, yaml string) ([]ScenarioProblem, error)
	// Reset goes back to the rules of the file.
	Reset(t *simulator.Tenant) error
	// ExplainPayment says which rule decided a stored payment, and why.
	ExplainPayment(t *simulator.Tenant, paymentID string) (Explanation, error)
	// ExplainRequest says which rule a payment request (JSON) would match.
	ExplainRequest(t *simulator.Tenant, requestJSON string) (Explanation, error)
}

// ScenarioProblem is one validation error of a scenarios document.
type ScenarioProblem struct {
	Line    int // 1-based; 0 when not tied to a line
	Message string
}

// Explanation is the rule that matched and why the others did not.
type Explanation struct {
	Rule    string
	Reasons []string
}

// Journal is the request journal (newest first, bodies redacted).
type Journal interface {
	Requests(t *simulator.Tenant, paymentID string, limit int) ([]JournalEntry, error)
}

// JournalEntry is one journaled request.
type JournalEntry struct {
	ID           string
	At           time.Time
	Method       string
	Path         string
	Status       int
	Latency      time.Duration
	RequestBody  string
	ResponseBody string
	Hints        []string
}
