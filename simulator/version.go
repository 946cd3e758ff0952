package simulator

import (
	"errors"
	"strings"
	"time"
)

// APIVersion is a merchant-API version as X-API-VERSION names it. The empty
// value is the current version (a payment stored before versions were
// recorded counts as 2.4).
type APIVersion string

// The versions served (docs/versions.md).
const (
	V21 APIVersion = "2.1"
	V22 APIVersion = "2.2"
	V23 APIVersion = "2.3"
	V24 APIVersion = "2.4"

	// CurrentAPIVersion is the version with no deprecation.
	CurrentAPIVersion = V24
	// EarliestAPIVersion is the one production serves a request without
	// the header.
	EarliestAPIVersion = V21
)

// APIVersions lists the versions accepted, oldest first.
var APIVersions = []APIVersion{V21, V22, V23, V24}

// Vendor dates of the versions below 2.4: deprecated from, and gone (410)
// after.
var (
	APIVersionDeprecated = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	APIVersionSunset     = time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
)

// ParseAPIVersion reports the version a header value names; ok is false for
// anything but an accepted value (the empty string included).
func ParseAPIVersion(s string) (APIVersion, bool) {
	for _, v := range APIVersions {
		if string(v) == s {
			return v, true
		}
	}
	return "", false
}

// AcceptedAPIVersions is the list of accepted values for error messages:
// "2.1, 2.2, 2.3 or 2.4".
func AcceptedAPIVersions() string {
	s := make([]string, len(APIVersions))
	for i, v := range APIVersions {
		s[i] = string(v)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Or is v, or the current version when v is empty.
func (v APIVersion) Or() APIVersion {
	if v == "" {
		return CurrentAPIVersion
	}
	return v
}

// OrDefault is v, or def when v is empty (a setting that names no version
// falls back to a configured one).
func (v APIVersion) OrDefault(def APIVersion) APIVersion {
	if v == "" {
		return def
	}
	return v
}

// Valid reports whether v is a version served.
func (v APIVersion) Valid() bool {
	_, ok := ParseAPIVersion(string(v))
	return ok
}

// APIVersionNames is APIVersions as strings (for enums and messages).
func APIVersionNames() []string {
	out := make([]string, len(APIVersions))
	for i, v := range APIVersions {
		out[i] = string(v)
	}
	return out
}

// CheckAPIVersion is nil for a version served, else the error whose text
// completes a sentence about the field ("version must be one of ...").
func CheckAPIVersion(s string) error {
	if APIVersion(s).Valid() {
		return nil
	}
	return errAPIVersion
}

var errAPIVersion = errors.New("must be one of 2.1, 2.2, 2.3, 2.4")

// rank orders the versions; an empty or unknown version ranks as current.
func (v APIVersion) rank() int {
	for i, w := range APIVersions {
		if w == v {
			return i
		}
	}
	return len(APIVersions) - 1
}

// Before reports whether v is older than w.
func (v APIVersion) Before(w APIVersion) bool { return v.rank() < w.rank() }

// AtLeast reports whether v is w or newer.
func (v APIVersion) AtLeast(w APIVersion) bool { return v.rank() >= w.rank() }

// Deprecated reports whether v is an older version answered with
// Deprecation and Sunset headers.
func (v APIVersion) Deprecated() bool { return v.Before(CurrentAPIVersion) }

// VersionDifference is one way an older version behaves unlike 2.4: every
// version before Until has it. Guess marks a behaviour the vendor documents
// without its exact shape or error, so the sandbox chose one (answers then
// carry a Sandbox-Warning).
type VersionDifference struct {
	Kind        string     `json:"kind"`
	Until       APIVersion `json:"until"`
	Description string     `json:"description"`
	Guess       bool       `json:"guess,omitempty"`
}

// Kinds of VersionDifference.
const (
	DiffAttemptRoutes       = "payment-attempts-route"
	DiffNewFields           = "unknown-2.4-field"
	DiffAnswerShape         = "answer-shape"
	DiffGatewayTimeout      = "no-gateway-timeout"
	DiffRequestTimeout      = "request-timeout-25s"
	DiffCaptureIdentity     = "capture-identity"
	DiffComputedType        = "computed-payment-type"
	DiffIdempotency400      = "idempotency-400"
	DiffProductData         = "no-product-data"
	LegacyRequestTimeoutSec = 25
)

// VersionDifferences is the one table of what 2.1-2.3 do unlike 2.4; the
// answers, the version notes (GET /_sandbox/versions) and the docs read it.
var VersionDifferences = []VersionDifference{
	{Kind: DiffAttemptRoutes, Until: V24, Description: "/payment-attempts/* answers 404 NotFound (after the key and version checks), as an unknown route."},
	{Kind: DiffNewFields, Until: V24, Description: "approvalMode, paymentMethod.firstPaymentReason, paymentMethod.vaultOnAgreement, expand and refund transactionEventId are unknown fields: 422 at their path."},
	{Kind: DiffAnswerShape, Until: V24, Description: "Answers have no currentAttemptId, approvalMode, transactions[].authorizationCode or transactions[].events."},
	{Kind: DiffGatewayTimeout, Until: V24, Description: "No GATEWAY_TIMEOUT decision type: a processor that does not answer in time gives statusReason type APPLICATION_ERROR."},
	{Kind: DiffRequestTimeout, Until: V24, Description: "The request timeout of every merchant-API route is 25 s, not 90 s (a shorter configured request_timeout still wins)."},
	{Kind: DiffCaptureIdentity, Until: V24, Description: "Partial captures work as on 2.4 (final: false keeps further captures open, up to the authorized amount) but have no identity: answers carry no transactionEventId (no transactions[].events), and a refund cannot target one capture (refund transactionEventId is an unknown field: 422)."},
	{Kind: DiffComputedType, Until: V24, Description: "paymentMethod.paymentType, when not supplied, is computed: UNSCHEDULED for a payment with a previously vaulted card, ECOMMERCE for a one-off (2.4 leaves it blank)."},
	{Kind: DiffIdempotency400, Until: V23, Description: "A reused X-Idempotency-Key on payments operations answers 400 TransactionRequestIdempotencyKeyAlreadyExists (with paymentId and paymentStatus), not 409 IdempotencyKeyAlreadyExists."},
	{Kind: DiffProductData, Until: V22, Description: "order.lineItems[].productData is an unknown field (422) and never answered."},
}

// Has reports whether v behaves as the difference kind says (v older than
// the version that brought 2.4's behaviour).
func (v APIVersion) Has(kind string) bool {
	for _, d := range VersionDifferences {
		if d.Kind == kind {
			return v.Or().Before(d.Until)
		}
	}
	return false
}

// DifferencesOf lists the differences v has from 2.4, in table order.
func DifferencesOf(v APIVersion) []VersionDifference {
	var out []VersionDifference
	for _, d := range VersionDifferences {
		if v.Or().Before(d.Until) {
			out = append(out, d)
		}
	}
	return out
}

// LegacyPaymentType is the paymentType versions before 2.4 compute when the
// request gives none: UNSCHEDULED for a customer-initiated payment with a
// previously vaulted card, ECOMMERCE for a one-off.
func LegacyPaymentType(vaulted bool) string {
	if vaulted {
		return PaymentTypeUnscheduled
	}
	return PaymentTypeEcommerce
}

// RequestTimeout is the request timeout of a merchant-API request made with
// v when the operator configured configured: below 2.4 at most 25 s.
func (v APIVersion) RequestTimeout(configured time.Duration) time.Duration {
	if legacy := LegacyRequestTimeoutSec * time.Second; configured > legacy && v.Has(DiffRequestTimeout) {
		return legacy
	}
	return configured
}

// WebhookDifference is one way a webhook body of an older version differs
// from the current version's (2.4): every version before Below differs so.
type WebhookDifference struct {
	// Path is the member's JSON path in the body, [] for every array index.
	Path string `json:"member"`
	// Kind is "absent" (the member is left out) or "value" (it is there
	// with another value).
	Kind string `json:"kind"`
	// Below is the first version without the difference.
	Below APIVersion `json:"until"`
	// Why says what it is and where the vendor documents it.
	Why string `json:"why"`
}

// The members of webhook bodies that differ by version (the Path of
// WebhookDifferences' rows).
const (
	WebhookVersionMember     = "version"
	WebhookAuthorizationCode = "payment.transactions[].authorizationCode"
	WebhookTransactionEvents = "payment.transactions[].events"
	WebhookCustomer          = "payment.customer"
	WebhookIsVaulted         = "payment.paymentMethod.isVaulted"
)

// WebhookDifferences is the one table of how webhook bodies of the older
// versions differ from 2.4's, newest first; the webhook renderer, its
// docs and the migration notes read it.
var WebhookDifferences = []WebhookDifference{
	{WebhookVersionMember, "value", V24, "the body's version: the tenant's webhook version when the event was made"},
	{WebhookAuthorizationCode, "absent", V24, "added by 2.4 (interface spec, versioning table)"},
	{WebhookTransactionEvents, "absent", V24, "2.4 carries transactions.events in place of processor data (interface spec, versioning table); the processor identifiers processorTransactionId and processorMerchantId stay on every version, as the vendor webhooks OpenAPI shows them"},
	{WebhookCustomer, "absent", V22, "2.1 payment-status bodies carry no customer object (vendor payment-status webhook migration guide)"},
	{WebhookIsVaulted, "absent", V22, "2.1 payment-status bodies carry no paymentMethod.isVaulted (vendor payment-status webhook migration guide)"},
}

// WebhookDifferencesOf lists the differences of webhook version v from the
// current one (none for 2.4).
func WebhookDifferencesOf(v APIVersion) []WebhookDifference {
	var out []WebhookDifference
	for _, d := range WebhookDifferences {
		if v.Or().Before(d.Below) {
			out = append(out, d)
		}
	}
	return out
}

// WebhookDiffers reports whether webhook bodies of version v differ from the
// current version's at member, as WebhookDifferences says (false for a member
// the table does not name).
func (v APIVersion) WebhookDiffers(member string) bool {
	for _, d := range WebhookDifferences {
		if d.Path == member {
			return v.Or().Before(d.Below)
		}
	}
	return false
}
