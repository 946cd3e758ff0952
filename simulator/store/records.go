package store

import (
	"time"

	"github.com/tinylib/msgp/msgp"
)

//go:generate go tool -modfile=../../tools/msgp/go.mod msgp -file records.go -o records_gen.go -io=false -unexported

//msgp:newtime
//msgp:timezone utc
//msgp:limit arrays:65536 maps:65536

// The store's record types: what a record holds, member by member, under
// the short names its msg tags give (a record is a MessagePack map of
// them; the code that reads and writes them is generated into
// records_gen.go by github.com/tinylib/msgp, see codec.go). They are the
// store's own: the kernel's types carry no codec, and record_map.go maps
// each one field by field to and from the kernel's. Zero members are left
// out (omitempty), and a record keeps nothing the key or another member
// says: the tenant id is the key's, a payment's card is a reference into
// the test-card catalogue when the catalogue rebuilds it, its transactions
// leave out what the payment repeats.
//
// Times are MessagePack timestamps read back in UTC, as the kernel
// normalises them (simulator.NormTime). Free-form members (metadata,
// options) are freeMap values (free_form.go). A list or map of more than
// 65,536 members does not decode (the limit directive): no record holds
// one (simulator/limits.go), so such a length is damage, refused before
// it is allocated.

// payRecord is a payment.
type payRecord struct {
	ID            string          `msg:"i"`
	Date          time.Time       `msg:"d"`
	DateUpdated   time.Time       `msg:"du"`
	Status        string          `msg:"s"`
	OrderID       string          `msg:"o"`
	CurrencyCode  string          `msg:"c"`
	Amount        int64           `msg:"a"`
	CustomerID    string          `msg:"ci,omitempty"`
	Customer      *customerRecord `msg:"cu,omitempty"`
	Order         *orderRecord    `msg:"or,omitempty"`
	Metadata      freeMap         `msg:"md,omitzero"`
	PaymentMethod pmRecord        `msg:"pm"`
	CardTokenType string          `msg:"tt,omitempty"`
	Processor     *procRecord     `msg:"pr,omitempty"`
	// Transactions: EmptyTransactions tells an empty list from none (the
	// wire shows [] for one, null for the other).
	Transactions      []txnRecord     `msg:"x,omitempty"`
	EmptyTransactions bool            `msg:"xe,omitempty"`
	Required          *requiredRecord `msg:"ra,omitempty"`
	StatusReason      *reasonRecord   `msg:"sr,omitempty"`
	// RiskData is kept only when it is not payment.AuthorizationRisk();
	// Risk says it is.
	RiskData *riskRecord `msg:"rd,omitempty"`
	Risk     bool        `msg:"rk,omitempty"`
	// Ref is the card when the catalogue rebuilds it, Card otherwise.
	Ref       *cardRefRecord `msg:"cr,omitempty"`
	Card      *cardRecord    `msg:"cd,omitempty"`
	CVVGiven  bool           `msg:"cv,omitempty"`
	SessionID string         `msg:"si,omitempty"`
	AttemptID string         `msg:"ai,omitempty"`
	// Authorized is nil when it is the amount.
	Authorized    *int64         `msg:"au,omitempty"`
	FinalCaptured bool           `msg:"fc,omitempty"`
	ThreeDS       *threeDSRecord `msg:"3d,omitempty"`
	Timeout       *timeoutRecord `msg:"to,omitempty"`
	Rule          string         `msg:"r,omitempty"`
	OneShot       string         `msg:"os,omitempty"`
	Plan          *planRecord    `msg:"pl,omitempty"`
	APIVersion    string         `msg:"v,omitempty"`
}

// pmRecord is a payment's paymentMethod. Its card data is D (what the
// payment's card does not say) when the card is by reference and says the
// rest, Data (whole) otherwise.
type pmRecord struct {
	PaymentType        string         `msg:"pt,omitempty"`
	PaymentMethodToken string         `msg:"tk,omitempty"`
	IsVaulted          bool           `msg:"iv,omitempty"`
	AuthorizationType  string         `msg:"at,omitempty"`
	Descriptor         string         `msg:"ds,omitempty"`
	AnalyticsID        string         `msg:"an,omitempty"`
	PaymentMethodType  string         `msg:"mt,omitempty"`
	D                  *cardDataShort `msg:"d,omitempty"`
	Data               *cardData      `msg:"pd,omitempty"`
	ThreeDSecure       *tdsRecord     `msg:"3s,omitempty"`
	VaultOnSuccess     bool           `msg:"vs,omitempty"`
	FirstPaymentReason string         `msg:"fr,omitempty"`
	VaultOnAgreement   bool           `msg:"va,omitempty"`
}

// cardDataShort is paymentMethodData less what the payment's card says.
type cardDataShort struct {
	Month     string `msg:"m,omitempty"`
	Year      string `msg:"y,omitempty"`
	Holder    string `msg:"h,omitempty"`
	Tokenized bool   `msg:"t,omitempty"`
	First6    bool   `msg:"6,omitempty"` // first6Digits shown
}

// cardData is paymentMethodData whole.
type cardData struct {
	First6    string    `msg:"6,omitempty"`
	Last4     string    `msg:"4,omitempty"`
	Month     string    `msg:"m,omitempty"`
	Year      string    `msg:"y,omitempty"`
	Holder    string    `msg:"h,omitempty"`
	Network   string    `msg:"n,omitempty"`
	Tokenized bool      `msg:"t,omitempty"`
	BinData   binRecord `msg:"b"`
}

type tdsRecord struct {
	ResponseCode    string `msg:"rc,omitempty"`
	ReasonCode      string `msg:"c,omitempty"`
	ReasonText      string `msg:"t,omitempty"`
	ProtocolVersion string `msg:"v,omitempty"`
	ChallengeIssued bool   `msg:"ci,omitempty"`
}

// procRecord is the processor state.
type procRecord struct {
	Name           string `msg:"n,omitempty"`
	MerchantID     string `msg:"m,omitempty"`
	AmountCaptured int64  `msg:"c,omitempty"`
	AmountRefunded int64  `msg:"r,omitempty"`
}

// txnRecord is a transaction: its currency, processor name and merchant id
// and card token type are nil when they are the payment's (a transaction
// that differs, even by being empty, keeps its own).
type txnRecord struct {
	ID                     string           `msg:"i"`
	Type                   string           `msg:"t,omitempty"`
	Date                   time.Time        `msg:"d"`
	Amount                 int64            `msg:"a,omitempty"`
	CurrencyCode           *string          `msg:"c,omitempty"`
	ProcessorStatus        string           `msg:"s,omitempty"`
	ProcessorStatusReason  *reasonRecord    `msg:"sr,omitempty"`
	ProcessorName          *string          `msg:"pn,omitempty"`
	ProcessorMerchantID    *string          `msg:"pm,omitempty"`
	ProcessorTransactionID string           `msg:"pt,omitempty"`
	CardTokenType          *string          `msg:"tt,omitempty"`
	AuthorizationCode      string           `msg:"ac,omitempty"`
	Reason                 string           `msg:"r,omitempty"`
	Events                 []txnEventRecord `msg:"e,omitempty"`
	CaptureEventID         string           `msg:"ce,omitempty"`
	Allocations            map[string]int64 `msg:"al,omitempty"`
}

type txnEventRecord struct {
	ID       string    `msg:"i"`
	Date     time.Time `msg:"d"`
	Type     string    `msg:"t,omitempty"`
	Amount   *int64    `msg:"a,omitempty"`
	Final    *bool     `msg:"f,omitempty"`
	Refunded int64     `msg:"r,omitempty"`
}

type requiredRecord struct {
	Name        string `msg:"n,omitempty"`
	Description string `msg:"d,omitempty"`
	ClientToken string `msg:"t,omitempty"`
}

type reasonRecord struct {
	Type        string `msg:"t,omitempty"`
	DeclineType string `msg:"d,omitempty"`
	Code        string `msg:"c,omitempty"`
	Message     string `msg:"m,omitempty"`
}

type riskRecord struct {
	FraudChecks *fraudRecord `msg:"f,omitempty"`
	CVVCheck    *checkRecord `msg:"c,omitempty"`
	AVSCheck    *avsRecord   `msg:"a,omitempty"`
}

type fraudRecord struct {
	Source string `msg:"s,omitempty"`
	Pre    string `msg:"pr,omitempty"`
	Post   string `msg:"po,omitempty"`
}

type checkRecord struct {
	Source string `msg:"s,omitempty"`
	Result string `msg:"r,omitempty"`
}

type avsRecord struct {
	Source     string `msg:"s,omitempty"`
	Street     string `msg:"a,omitempty"`
	PostalCode string `msg:"p,omitempty"`
}

type threeDSRecord struct {
	ChallengeToken string `msg:"c,omitempty"`
	Result         string `msg:"r,omitempty"`
	ResumeToken    string `msg:"t,omitempty"`
}

type timeoutRecord struct {
	ResolveTo string    `msg:"to,omitempty"`
	ResolveAt time.Time `msg:"at"`
	RequestID string    `msg:"rq,omitempty"`
}

// cardRefRecord is simulator.CardRef.
type cardRefRecord struct {
	Fingerprint string `msg:"f"`
	First6      string `msg:"6,omitempty"`
	Last4       string `msg:"4,omitempty"`
	Network     string `msg:"n,omitempty"`
}

// cardRecord is a card stored whole (one the catalogue cannot rebuild).
type cardRecord struct {
	Fingerprint    string    `msg:"f,omitempty"`
	First6         string    `msg:"6,omitempty"`
	Last4          string    `msg:"4,omitempty"`
	Network        string    `msg:"n,omitempty"`
	NetworkDisplay string    `msg:"nd,omitempty"`
	BinData        binRecord `msg:"b"`
	CVVLength      int       `msg:"cl,omitempty"`
	Catalogued     bool      `msg:"ca,omitempty"`
	Description    string    `msg:"de,omitempty"`
}

type binRecord struct {
	Network                    string `msg:"n,omitempty"`
	IssuerCountryCode          string `msg:"ic,omitempty"`
	IssuerName                 string `msg:"in,omitempty"`
	IssuerCurrencyCode         string `msg:"cc,omitempty"`
	RegionalRestriction        string `msg:"rr,omitempty"`
	AccountNumberType          string `msg:"nt,omitempty"`
	AccountFundingType         string `msg:"ft,omitempty"`
	PrepaidReloadableIndicator string `msg:"pr,omitempty"`
	ProductUsageType           string `msg:"ut,omitempty"`
	ProductCode                string `msg:"pc,omitempty"`
	ProductName                string `msg:"pn,omitempty"`
}

// planRecord is the plan. The authorizing account is the index (from 1) of
// the step that names it, when one does (AccountStep), else Account.
type planRecord struct {
	Rule        string         `msg:"r,omitempty"`
	Why         string         `msg:"w,omitempty"`
	Steps       []stepRecord   `msg:"s,omitempty"`
	Capture     *captureRecord `msg:"c,omitempty"`
	Refund      *refundRecord  `msg:"f,omitempty"`
	Dispute     *disputePlan   `msg:"d,omitempty"`
	Account     *accountRecord `msg:"a,omitempty"`
	AccountStep int            `msg:"as,omitempty"`
}

type accountRecord struct {
	Name              string        `msg:"n,omitempty"`
	MerchantID        string        `msg:"m,omitempty"`
	AsyncCapture      bool          `msg:"y,omitempty"`
	SettleAfter       time.Duration `msg:"sa,omitempty"`
	AuthorizationCode bool          `msg:"ac,omitempty"`
}

type stepRecord struct {
	Account accountRecord `msg:"a"`
	Status  string        `msg:"s,omitempty"`
	Reason  *reasonRecord `msg:"r,omitempty"`
}

type captureRecord struct {
	Status      string        `msg:"s,omitempty"`
	SettleAfter time.Duration `msg:"sa,omitempty"`
	SettleTo    string        `msg:"st,omitempty"`
	Reason      *reasonRecord `msg:"r,omitempty"`
}

type refundRecord struct {
	Status    string        `msg:"s,omitempty"`
	After     time.Duration `msg:"af,omitempty"`
	ResolveTo string        `msg:"rt,omitempty"`
	Reason    *reasonRecord `msg:"r,omitempty"`
}

// disputePlan is simulator.DisputeDecision (a plan's, a job's).
type disputePlan struct {
	After  time.Duration       `msg:"af,omitempty"`
	Reason string              `msg:"r,omitempty"`
	Amount int64               `msg:"am,omitempty"`
	Then   []disputeStepRecord `msg:"t,omitempty"`
}

type disputeStepRecord struct {
	Status string        `msg:"s,omitempty"`
	After  time.Duration `msg:"af,omitempty"`
}

// customerRecord is simulator.Customer.
type customerRecord struct {
	EmailAddress       string         `msg:"e,omitempty"`
	MobileNumber       string         `msg:"m,omitempty"`
	FirstName          string         `msg:"f,omitempty"`
	LastName           string         `msg:"l,omitempty"`
	BillingAddress     *addressRecord `msg:"b,omitempty"`
	ShippingAddress    *addressRecord `msg:"s,omitempty"`
	TaxID              string         `msg:"t,omitempty"`
	NationalDocumentID string         `msg:"n,omitempty"`
}

type addressRecord struct {
	FirstName    string `msg:"f,omitempty"`
	LastName     string `msg:"l,omitempty"`
	AddressLine1 string `msg:"1,omitempty"`
	AddressLine2 string `msg:"2,omitempty"`
	City         string `msg:"c,omitempty"`
	State        string `msg:"s,omitempty"`
	CountryCode  string `msg:"cc,omitempty"`
	PostalCode   string `msg:"p,omitempty"`
}

// orderRecord is simulator.Order.
type orderRecord struct {
	LineItems           []lineItemRecord `msg:"li,omitempty"`
	CountryCode         string           `msg:"cc,omitempty"`
	RetailerCountryCode string           `msg:"rc,omitempty"`
	Fees                []feeRecord      `msg:"f,omitempty"`
	Shipping            *shippingRecord  `msg:"s,omitempty"`
}

type lineItemRecord struct {
	ItemID         string         `msg:"i,omitempty"`
	Name           string         `msg:"n,omitempty"`
	Description    string         `msg:"d,omitempty"`
	Amount         *int64         `msg:"a,omitempty"`
	Quantity       *int64         `msg:"q,omitempty"`
	DiscountAmount *int64         `msg:"da,omitempty"`
	TaxAmount      *int64         `msg:"ta,omitempty"`
	TaxCode        string         `msg:"tc,omitempty"`
	ProductType    string         `msg:"pt,omitempty"`
	ProductData    *productRecord `msg:"pd,omitempty"`
}

type productRecord struct {
	Sku                    string   `msg:"s,omitempty"`
	Brand                  string   `msg:"b,omitempty"`
	Color                  string   `msg:"c,omitempty"`
	GlobalTradeItemNumber  string   `msg:"g,omitempty"`
	ManufacturerPartNumber string   `msg:"m,omitempty"`
	Weight                 *float64 `msg:"w,omitempty"`
	WeightUnit             string   `msg:"wu,omitempty"`
	PageURL                string   `msg:"u,omitempty"`
}

type feeRecord struct {
	Amount      *int64 `msg:"a,omitempty"`
	Type        string `msg:"t,omitempty"`
	Description string `msg:"d,omitempty"`
}

type shippingRecord struct {
	Amount            *int64 `msg:"a,omitempty"`
	MethodID          string `msg:"i,omitempty"`
	MethodName        string `msg:"n,omitempty"`
	MethodDescription string `msg:"d,omitempty"`
}

// sessionRecord is a client session.
type sessionRecord struct {
	ID               string           `msg:"i"`
	ClientToken      string           `msg:"t"`
	ExpiresAt        time.Time        `msg:"x"`
	CreatedAt        time.Time        `msg:"c"`
	ApprovalMode     string           `msg:"m,omitempty"`
	CurrentAttemptID string           `msg:"a,omitempty"`
	CustomerID       string           `msg:"ci,omitempty"`
	OrderID          string           `msg:"o,omitempty"`
	CurrencyCode     string           `msg:"cc,omitempty"`
	Amount           *int64           `msg:"am,omitempty"`
	Metadata         freeMap          `msg:"md,omitzero"`
	Customer         *customerRecord  `msg:"cu,omitempty"`
	Order            *orderRecord     `msg:"or,omitempty"`
	PaymentMethod    *sessionPMRecord `msg:"pm,omitempty"`
}

// sessionPMRecord is simulator.SessionPaymentMethod.
type sessionPMRecord struct {
	VaultOnSuccess             *bool    `msg:"vs,omitempty"`
	VaultOn3DS                 *bool    `msg:"v3,omitempty"`
	VaultOnAgreement           *bool    `msg:"va,omitempty"`
	Descriptor                 string   `msg:"ds,omitempty"`
	PaymentType                string   `msg:"pt,omitempty"`
	OrderedAllowedCardNetworks []string `msg:"nw,omitempty"`
	Options                    freeMap  `msg:"op,omitzero"`
	AuthorizationType          string   `msg:"at,omitempty"`
	FirstPaymentReason         string   `msg:"fr,omitempty"`
}

// instRecord is a payment instrument; its card as a payment's (Ref or Card).
type instRecord struct {
	Token          string         `msg:"i"`
	TokenType      string         `msg:"tt,omitempty"`
	Ref            *cardRefRecord `msg:"cr,omitempty"`
	Card           *cardRecord    `msg:"cd,omitempty"`
	ExpiryMonth    string         `msg:"m,omitempty"`
	ExpiryYear     string         `msg:"y,omitempty"`
	CardholderName string         `msg:"h,omitempty"`
	CVVGiven       bool           `msg:"cv,omitempty"`
	AnalyticsID    string         `msg:"an,omitempty"`
	CreatedAt      time.Time      `msg:"c"`
	SessionID      string         `msg:"si,omitempty"`
	AttemptID      string         `msg:"ai,omitempty"`
	Used           bool           `msg:"u,omitempty"`
	Invalidated    bool           `msg:"iv,omitempty"`
	VaultedAs      string         `msg:"va,omitempty"`
	CustomerID     string         `msg:"cu,omitempty"`
	SourceToken    string         `msg:"st,omitempty"`
	Verified       bool           `msg:"ve,omitempty"`
	Default        bool           `msg:"df,omitempty"`
	Deleted        bool           `msg:"de,omitempty"`
	DeletedAt      time.Time      `msg:"da,omitzero"`
}

// attemptRecord is a payment attempt.
type attemptRecord struct {
	ID        string    `msg:"i"`
	SessionID string    `msg:"s,omitempty"`
	Token     string    `msg:"t,omitempty"`
	Status    string    `msg:"st,omitempty"`
	CreatedAt time.Time `msg:"c"`
	ExpiresAt time.Time `msg:"x"`
	UpdatedAt time.Time `msg:"u"`
	PaymentID string    `msg:"p,omitempty"`
}

// jobRecord is scheduled work.
type jobRecord struct {
	ID            string       `msg:"i"`
	Kind          string       `msg:"k"`
	Due           time.Time    `msg:"d"`
	RealDue       time.Time    `msg:"rd"`
	PaymentID     string       `msg:"p,omitempty"`
	AttemptID     string       `msg:"a,omitempty"`
	TransactionID string       `msg:"x,omitempty"`
	Status        string       `msg:"s,omitempty"`
	Reason        string       `msg:"r,omitempty"`
	DisputeID     string       `msg:"di,omitempty"`
	Dispute       *disputePlan `msg:"dp,omitempty"`
}

// disputeRecord is a dispute; an event's copy leaves Then out.
type disputeRecord struct {
	ID                  string              `msg:"i"`
	PaymentID           string              `msg:"p,omitempty"`
	OrderID             string              `msg:"o,omitempty"`
	Reason              string              `msg:"r,omitempty"`
	Amount              int64               `msg:"a,omitempty"`
	CurrencyCode        string              `msg:"c,omitempty"`
	TransactionID       string              `msg:"x,omitempty"`
	Processor           string              `msg:"pr,omitempty"`
	ProcessorMerchantID string              `msg:"pm,omitempty"`
	PaymentMethodType   string              `msg:"mt,omitempty"`
	Network             string              `msg:"n,omitempty"`
	Status              string              `msg:"s,omitempty"`
	Type                string              `msg:"t,omitempty"`
	OpenedAt            time.Time           `msg:"op"`
	UpdatedAt           time.Time           `msg:"u"`
	Then                []disputeStepRecord `msg:"th,omitempty"`
}

// evStore is an event as stored after its payment id (tx_outbox.go): its
// record, then what its webhook body is rendered from (the payment as it
// was, a payRecord, and the dispute of a DISPUTE.* event, a disputeRecord,
// both kept encoded: recording an attempt rewrites them unchanged), or the
// rendered body of an event in the body form (an imported one). V is the
// webhook version the body is rendered in ("": the current one).
type evStore struct {
	R evRecord `msg:"r"`
	P msgp.Raw `msg:"p,omitempty"`
	D msgp.Raw `msg:"d,omitempty"`
	B []byte   `msg:"b,omitempty"`
	V string   `msg:"v,omitempty"`
}

// evHead is the part of an evStore a listing reads (the rest is skipped).
type evHead struct {
	R evRecord `msg:"r"`
}

// evStatus is the part of an evStore the retention prune reads.
type evStatus struct {
	R struct {
		Status string `msg:"s"`
	} `msg:"r"`
}

// evRecord is an event's record.
type evRecord struct {
	ID            string           `msg:"i"`
	Type          string           `msg:"t"`
	PaymentID     string           `msg:"p,omitempty"`
	DisputeID     string           `msg:"di,omitempty"`
	CreatedAt     time.Time        `msg:"c"`
	Status        string           `msg:"s"`
	NextAt        time.Time        `msg:"n,omitzero"`
	Attempts      []attemptOfEvent `msg:"a,omitempty"`
	TraceParent   string           `msg:"tp,omitempty"`
	PaymentStatus string           `msg:"ps,omitempty"`
}

// attemptOfEvent is simulator.DeliveryAttempt.
type attemptOfEvent struct {
	At               time.Time         `msg:"at"`
	StatusCode       int               `msg:"s,omitempty"`
	LatencyMs        int64             `msg:"l,omitempty"`
	Error            string            `msg:"e,omitempty"`
	ResponseBodyHead string            `msg:"b,omitempty"`
	SignedAt         string            `msg:"sa,omitempty"`
	Headers          map[string]string `msg:"h,omitempty"`
	Replay           bool              `msg:"r,omitempty"`
	Chaos            string            `msg:"c,omitempty"`
}

// tenantRecord is a tenant (in the catalog).
type tenantRecord struct {
	ID                   string         `msg:"i"`
	APIKeys              []apiKeyRecord `msg:"k"`
	SigningSecret        string         `msg:"s"`
	PreviousSecret       string         `msg:"ps,omitempty"`
	PreviousUntil        time.Time      `msg:"pu,omitzero"`
	WebhookURL           string         `msg:"w,omitempty"`
	WebhookVersion       string         `msg:"wv,omitempty"`
	WebhookChaos         *chaosRecord   `msg:"wc,omitempty"`
	ClockOffset          time.Duration  `msg:"co,omitempty"`
	First6Digits         bool           `msg:"f6,omitempty"`
	FromConfig           bool           `msg:"fc,omitempty"`
	CreatedAt            time.Time      `msg:"c"`
	ExpiresAt            time.Time      `msg:"x,omitzero"`
	TenantClockExpiresAt time.Time      `msg:"tx,omitzero"`
	Scenarios            string         `msg:"sc,omitempty"`
	Next                 *oneShotRecord `msg:"n,omitempty"`
}

type apiKeyRecord struct {
	Key    string   `msg:"k"`
	Scopes []string `msg:"s"`
}

type chaosRecord struct {
	Duplicate float64       `msg:"d,omitempty"`
	Reorder   bool          `msg:"r,omitempty"`
	Delay     time.Duration `msg:"l,omitempty"`
	Seed      int64         `msg:"s,omitempty"`
}

type oneShotRecord struct {
	Rule      string `msg:"r"`
	Remaining int    `msg:"n"`
}

// expiredTenantRecord is what remains of a tenant its ttl deleted.
type expiredTenantRecord struct {
	TenantID  string    `msg:"i"`
	APIKeys   []string  `msg:"k"`
	ExpiredAt time.Time `msg:"x"`
	DeletedAt time.Time `msg:"d"`
}
