package simulator

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"
)

// ErrConflict is returned by Tx writes that lost a uniqueness race.
var ErrConflict = errors.New("simulator: conflict")

// Store is the persistence port. View and Update run fn in one transaction;
// Update commits only when fn returns nil. Inside fn never call a processor,
// the network, or another transaction.
type Store interface {
	View(fn func(tx Tx) error) error
	Update(fn func(tx Tx) error) error
	// Changes is notified, once per tenant, after every committed Update
	// that wrote a record of that tenant (its tenant record included), so
	// that a read begun after the notification sees the write.
	Changes() ChangeFeed
	// Hold keeps tenantID's data open until release is called (long-polls,
	// streams and clock advances hold their tenant; a transaction holds its
	// tenants while it runs). A store that opens tenants on demand never
	// closes a held one; release is idempotent.
	Hold(tenantID string) (release func())
}

// ChangeFeed signals, per tenant, that something the tenant can see changed: a
// committed write of its records (the store signals those, Store.Changes) or
// a change kept outside the store (the request journal, which the service notes).
// A watcher takes Next before it reads what it compares, so a change that
// lands during or after the read closes the channel it holds:
//
//	changed := svc.Changed(t.ID)
//	last := read()
//	<-changed // then take the next channel, read again, compare
type ChangeFeed interface {
	// Next returns a channel closed at the tenant's next Notify after this
	// call (every watcher of the tenant shares it).
	Next(tenantID string) <-chan struct{}
	// Notify closes the tenant's current channel: its watchers wake once each.
	Notify(tenantID string)
}

// Tx is one store transaction. Getters return (nil, nil) when the record does
// not exist. Every record is scoped to its tenant, so another tenant's id
// behaves as unknown.
type Tx interface {
	// AfterCommit runs fn after the transaction commits, outside it (in
	// the order given); never when it rolls back, nor in a read
	// transaction.
	AfterCommit(fn func())

	Tenant(id string) (*Tenant, error)
	TenantByAPIKey(key string) (*Tenant, error)
	Tenants() ([]*Tenant, error)
	PutTenant(t *Tenant) error
	// DeleteTenantData removes every record of the tenant; with the tenant
	// itself too when all is set.
	DeleteTenantData(tenantID string, all bool) error
	// ExpiringTenants returns the ids of up to limit tenants whose
	// ExpiresAt is at or before until, earliest first; NextTenantExpiry the
	// earliest ExpiresAt of all tenants (zero: none has one).
	ExpiringTenants(until time.Time, limit int) ([]string, error)
	NextTenantExpiry() (time.Time, error)
	// PutExpiredTenant records an expired tenant under each of its keys;
	// ExpiredTenantByAPIKey finds the record of a key (nil: none).
	PutExpiredTenant(x *ExpiredTenant) error
	ExpiredTenantByAPIKey(key string) (*ExpiredTenant, error)
	// PruneExpiredTenants deletes the expired-tenant records deleted at or before
	// before, then the oldest beyond the newest keep; it answers the DeletedAt
	// of the oldest record left (zero: none).
	PruneExpiredTenants(keep int, before time.Time) (time.Time, error)

	Session(tenantID, id string) (*ClientSession, error)
	SessionByToken(clientToken string) (*ClientSession, error)
	PutSession(s *ClientSession) error

	Instrument(tenantID, token string) (*Instrument, error)
	// InstrumentRevision reads an instrument as Instrument does, with the
	// revision of its stored value; InstrumentAt answers, without decoding
	// it, whether the stored value is still the one of rev (false once the
	// instrument is written with other content or deleted).
	InstrumentRevision(tenantID, token string) (*Instrument, Revision, error)
	InstrumentAt(tenantID, token string, rev Revision) (bool, error)
	InstrumentsByCustomer(tenantID, customerID string) ([]*Instrument, error)
	PutInstrument(in *Instrument) error

	Payment(tenantID, id string) (*Payment, error)
	PutPayment(p *Payment) error
	ListPayments(tenantID string, q PaymentQuery) (PaymentPage, error)
	// PaymentByChallenge resolves a 3DS challenge token (client side, no key).
	PaymentByChallenge(challengeToken string) (*Payment, error)
	PutChallenge(challengeToken, tenantID, paymentID string) error
	DeleteChallenge(challengeToken string) error

	// Idempotency returns the payment a key was used for, "" when free.
	Idempotency(tenantID, key string) (string, error)
	ClaimIdempotency(tenantID, key, paymentID string) error

	Attempt(tenantID, id string) (*Attempt, error)
	PutAttempt(a *Attempt) error
	// Attempts lists the tenant's payment attempts (any order).
	Attempts(tenantID string) ([]*Attempt, error)

	// AppendEvent stores a new event with what its body is rendered from
	// (Event.Payment and Event.Dispute as they are now).
	AppendEvent(e *Event) error
	// PutPaymentWithEvent is PutPayment(p) then AppendEvent(e), for an
	// event of p alone (e.Payment is p, e.Dispute nil) as stored now: the
	// store encodes p once for both.
	PutPaymentWithEvent(p *Payment, e *Event) error
	// Webhook outbox and disputes (docs/webhooks.md, docs/control-plane.md).
	Event(tenantID, id string) (*Event, error)
	// EventRecord reads an event as Events lists it: without what its body
	// is rendered from (an update of its delivery state needs no more).
	EventRecord(tenantID, id string) (*Event, error)
	// PutEvent stores an event again (after an attempt), keeping the
	// tenant's pending queue in step with its status.
	PutEvent(e *Event) error
	// Events lists the tenant's events, newest first, without their bodies
	// (Event reads one with its body).
	Events(tenantID string, q EventQuery) ([]*Event, error)
	// PendingEvents lists the tenant's PENDING events by payment, each
	// payment's in creation order.
	PendingEvents(tenantID string) ([]PendingRef, error)
	// TenantsWithPending answers the ids of the tenants that may have
	// PENDING events: a superset (a tenant it leaves out has none), so
	// that the dispatcher reads only those without opening every tenant.
	TenantsWithPending() ([]string, error)
	// PruneEvents deletes delivered and exhausted events beyond the newest
	// keep (keep <= 0: no count bound) and those created before before (zero: no age bound),
	// at most PruneBatch of them (the oldest first when over the age bound); it answers how many,
	// and where the next call of the same pruning resumes (PruneFrom).
	PruneEvents(tenantID string, keep int, before time.Time, from PruneFrom) (int, PruneFrom, error)
	Dispute(tenantID, id string) (*Dispute, error)
	PutDispute(d *Dispute) error
	// Disputes lists the tenant's disputes, newest first (of one payment when set).
	Disputes(tenantID, paymentID string) ([]*Dispute, error)

	PutJob(j *Job) error
	DeleteJob(j *Job) error
	Job(tenantID, id string) (*Job, error)
	// DueJobs returns the tenant's jobs due at or before until, in due order.
	DueJobs(tenantID string, until time.Time, limit int) ([]*Job, error)
	// NextJob returns the job with the earliest real due time over all tenants.
	NextJob() (*Job, error)

	// Sessions, Instruments and IdempotencyKeys list all of the tenant's
	// client sessions, payment instruments (vaulted and single-use) and
	// idempotency keys (key -> payment id), in no particular order: a
	// snapshot reads them.
	Sessions(tenantID string) ([]*ClientSession, error)
	Instruments(tenantID string) ([]*Instrument, error)
	IdempotencyKeys(tenantID string) (map[string]string, error)
	// HoldEvent takes a PENDING event (stored, as e says) out of the
	// delivery queue: the dispatcher never attempts it on its own, a
	// replay still does (imported events are held). EventHeld reports
	// whether e is held: PENDING and not queued.
	HoldEvent(e *Event) error
	EventHeld(e *Event) (bool, error)

	// Unreadable answers the records this transaction's lists skipped
	// because they do not decode (a read of one answers RecordUnreadable).
	Unreadable() []UnreadableRecord
}

// Revision is an opaque revision of a stored record's value, made and
// compared by the store only: two revisions of one record are equal exactly
// when its stored values are ("": no record).
type Revision string

// UnreadableRecord is a stored record that does not decode: its key, and
// its kind (one of the Record* names, "" for another) and id.
type UnreadableRecord struct {
	Key  string
	Kind string
	ID   string
}

// Kinds of records, as UnreadableRecord and a snapshot's skipped member name them.
const (
	RecordPayment     = "payment"
	RecordSession     = "session"
	RecordInstrument  = "instrument"
	RecordAttempt     = "attempt"
	RecordEvent       = "event"
	RecordDispute     = "dispute"
	RecordJob         = "job"
	RecordIdempotency = "idempotencyKey"
)

// PaymentQuery filters and pages GET /payments: every filter the vendor
// lists. Empty filters match all; a list matches any of its values.
type PaymentQuery struct {
	Status       []PaymentStatus
	CurrencyCode []string
	OrderID      string
	CustomerID   []string
	FromDate     *time.Time
	ToDate       *time.Time
	MinAmount    *int64
	MaxAmount    *int64
	Last4        []string
	Processor    []string
	// PaymentMethodType is on paymentMethod.paymentMethodType.
	PaymentMethodType []string
	// CustomerEmail is on customer.emailAddress, compared by FoldEmail.
	CustomerEmail []string
	// MerchantID is on processor.processorMerchantId.
	MerchantID []string
	// PaypalEmail and KlarnaEmail are on payment methods the sandbox never
	// makes: either, when given, matches nothing (MatchesNothing).
	PaypalEmail []string
	KlarnaEmail []string
	Limit       int
	Cursor      *Cursor
}

// MatchesNothing reports whether q filters on a field no payment of the
// sandbox has (a PayPal or Klarna e-mail address), so that no payment can
// pass it.
func (q PaymentQuery) MatchesNothing() bool { return len(q.PaypalEmail) > 0 || len(q.KlarnaEmail) > 0 }

// FoldEmail is an e-mail address as the customer_email_address filter
// compares it (exact, case-insensitive).
func FoldEmail(s string) string { return strings.ToLower(s) }

// Cursor is a position in the newest-first order of (date, id).
type Cursor struct {
	Date time.Time
	ID   string
	// Before pages towards newer payments (prevCursor).
	Before bool
}

// PaymentPage is one page of payments with the cursors around it.
type PaymentPage struct {
	Payments []*Payment
	Next     *Cursor
	Prev     *Cursor
	// Unreadable names the payments the page skipped because their
	// records do not decode (their keys); left out of a page's JSON (tests
	// keep pages as golden JSON) when empty.
	Unreadable []string `json:",omitempty"`
}

// ProcessorAccount is one configured merchant account of a fake processor.
type ProcessorAccount struct {
	Name                string
	ProcessorMerchantID string
	// AsyncCapture: capture gives SETTLING, then SETTLED after SettleAfter.
	AsyncCapture      bool
	SettleAfter       time.Duration
	AuthorizationCode bool
}

// Processor decides what the processors do with a payment. Decisions are
// pure data; the service orchestrates them (retries across processors, 3DS,
// timeouts, scheduling, webhooks). The scenario engine is one implementation.
//
// Each method is given the tenant as its caller holds it (a request's, read
// once when it authenticates; a job's, read when it runs) and reads the
// tenant's own rules from it, never from the store: the service asks
// Accounts inside its transactions, and the decisions outside them.
type Processor interface {
	// Accounts lists the tenant's processor accounts, the default first.
	Accounts(t *Tenant) []ProcessorAccount
	Authorize(ctx context.Context, t *Tenant, p *Payment) AuthorizeDecision
	Capture(ctx context.Context, t *Tenant, p *Payment, amount int64) CaptureDecision
	Refund(ctx context.Context, t *Tenant, p *Payment, amount int64) RefundDecision
}

// AuthorizeDecision is what authorizing a payment leads to.
type AuthorizeDecision struct {
	Rule string
	// ThreeDS is the authentication the card goes through before authorization.
	ThreeDS ThreeDSProfile
	// Steps are tried in order; a SOFT_DECLINE moves to the next step.
	Steps []AuthStep
	// Timeout, when set, answers 504 and resolves the payment later.
	Timeout *TimeoutDecision
	// Latency is real time the processor takes (may cause a 504).
	Latency time.Duration
	// Dispute opens a dispute this long after authorization.
	Dispute *DisputeDecision
	// Why says in plain words why Rule was chosen (explain).
	Why string
	// Capture and Refund are what the rule dictates for the payment's later
	// captures and refunds (nil: the processor's own behaviour). They are
	// stored on the payment with the rest of the decision (Payment.Plan).
	Capture *CaptureDecision
	Refund  *RefundDecision
}

// AuthStep is one processor's answer.
type AuthStep struct {
	Account ProcessorAccount
	Status  PaymentStatus // AUTHORIZED, DECLINED or FAILED
	Reason  *StatusReason
}

// TimeoutDecision resolves a timed-out payment to ResolveTo, After its creation.
type TimeoutDecision struct {
	ResolveTo PaymentStatus
	After     time.Duration
	// HoldFor is how long the caller waits for its 504; 0 means until the
	// request timeout.
	HoldFor time.Duration
}

// DisputeDecision schedules a dispute.
type DisputeDecision struct {
	After  time.Duration
	Reason string
	// Amount disputed; 0 means the captured (else authorized) amount.
	Amount int64
	// Then scripts the dispute's lifecycle after it opens (scenario
	// `dispute.then`); each After counts from the previous step.
	Then []DisputeStep
}

// DisputeStep moves an open dispute to Status (one of DisputeMoves) After
// the previous step, on the tenant clock.
type DisputeStep struct {
	Status DisputeStatus
	After  time.Duration
}

// CaptureDecision is what a capture leads to.
type CaptureDecision struct {
	Status      PaymentStatus // SETTLED, SETTLING or FAILED
	SettleAfter time.Duration // for SETTLING
	SettleTo    PaymentStatus // SETTLED or FAILED, for SETTLING
	Reason      *StatusReason
}

// RefundDecision is what a refund leads to.
type RefundDecision struct {
	Status    PaymentStatus // SETTLED, FAILED or PENDING
	After     time.Duration // for PENDING
	ResolveTo PaymentStatus // SETTLED or FAILED, for PENDING
	Reason    *StatusReason
}

// EndpointPolicy decides which webhook endpoints may be stored (serve's
// --webhook-allow; the webhooks package implements it and checks the address
// it dials again, since DNS answers change). service.CheckWebhookEndpoint
// asks it wherever an endpoint is set.
type EndpointPolicy interface {
	// AdmitEndpoint answers nil, or why u is refused as a sentence that
	// completes "url ..." and names the rule ("is refused by
	// --webhook-allow ..."). It may resolve u's host.
	AdmitEndpoint(u *url.URL) error
}

// PruneBatch is the most events Tx.PruneEvents deletes in one call (one
// write transaction), so that pruning a large backlog never holds the
// store's write lock for long: PruneEvents calls it again until it deletes
// fewer.
const PruneBatch = 256

// PruneFrom is where a pruning that takes several calls of Tx.PruneEvents
// resumes: below the oldest of the newest keep finished events, which an
// earlier call found, so that each call reads only the batch it deletes
// instead of walking the kept events again. The zero value starts from the
// newest event; the store alone reads the others. Events made meanwhile
// are newer, so the events below that boundary stay beyond the newest
// keep.
type PruneFrom string
