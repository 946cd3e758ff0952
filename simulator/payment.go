package simulator

import (
	"fmt"
	"slices"
	"time"
)

// PaymentStatus is the status of a payment.
type PaymentStatus string

// Payment statuses.
const (
	StatusPending          PaymentStatus = "PENDING"
	StatusFailed           PaymentStatus = "FAILED"
	StatusAuthorized       PaymentStatus = "AUTHORIZED"
	StatusSettling         PaymentStatus = "SETTLING"
	StatusPartiallySettled PaymentStatus = "PARTIALLY_SETTLED"
	StatusSettled          PaymentStatus = "SETTLED"
	StatusDeclined         PaymentStatus = "DECLINED"
	StatusCancelled        PaymentStatus = "CANCELLED"
)

// PaymentStatuses lists every status, in the spec's order.
var PaymentStatuses = []PaymentStatus{
	StatusPending, StatusFailed, StatusAuthorized, StatusSettling,
	StatusPartiallySettled, StatusSettled, StatusDeclined, StatusCancelled,
}

// Valid reports whether s is one of the statuses.
func (s PaymentStatus) Valid() bool { return slices.Contains(PaymentStatuses, s) }

// Terminal reports whether no action can move the payment any more.
func (s PaymentStatus) Terminal() bool {
	return s == StatusDeclined || s == StatusFailed || s == StatusCancelled
}

// Transaction types and event types.
const (
	TxnSale   = "SALE"
	TxnRefund = "REFUND"

	EventAuthorizationSucceeded = "AUTHORIZATION_SUCCEEDED"
	EventCaptureSucceeded       = "CAPTURE_SUCCEEDED"
	EventCancellationSucceeded  = "CANCELLATION_SUCCEEDED"
)

// Payment is the payment resource plus the state the orchestration keeps.
type Payment struct {
	ID            string          `json:"id"`
	TenantID      string          `json:"tenantId"`
	Date          time.Time       `json:"date"`
	DateUpdated   time.Time       `json:"dateUpdated"`
	Status        PaymentStatus   `json:"status"`
	OrderID       string          `json:"orderId"`
	CurrencyCode  string          `json:"currencyCode"`
	Amount        int64           `json:"amount"`
	CustomerID    string          `json:"customerId,omitempty"`
	Customer      *Customer       `json:"customer,omitempty"`
	Order         *Order          `json:"order,omitempty"`
	Metadata      map[string]any  `json:"metadata,omitempty"`
	PaymentMethod PaymentMethod   `json:"paymentMethod"`
	CardTokenType string          `json:"cardTokenType,omitempty"`
	Processor     *ProcessorState `json:"processor,omitempty"`
	Transactions  []Transaction   `json:"transactions"`
	Required      *RequiredAction `json:"requiredAction,omitempty"`
	StatusReason  *StatusReason   `json:"statusReason,omitempty"`
	RiskData      *RiskData       `json:"riskData,omitempty"`
	Card          CardInfo        `json:"card"`
	CVVGiven      bool            `json:"cvvGiven,omitempty"` // a CVV came with the card for this payment
	SessionID     string          `json:"sessionId,omitempty"`
	AttemptID     string          `json:"attemptId,omitempty"`
	Authorized    int64           `json:"authorized"`    // amount authorized
	FinalCaptured bool            `json:"finalCaptured"` // a final capture closed further captures
	ThreeDS       *ThreeDSState   `json:"threeDS,omitempty"`
	Timeout       *TimeoutState   `json:"timeout,omitempty"`
	Rule          string          `json:"rule,omitempty"` // the scenario rule that decided it
	// OneShot is the rule a pending one-shot gave the payment when it was
	// created: the processor decides by it (metadata.sandboxScenario aside)
	// whenever it authorizes the payment, in this process or after a restart.
	OneShot string `json:"oneShot,omitempty"`
	// Plan is the decision taken when the payment was created; it governs
	// the rest of the payment's life even if the tenant's rules change.
	Plan *Plan `json:"plan,omitempty"`
	// APIVersion is the version the payment was created with; it shapes
	// answers about it that have no version header of their own. Empty
	// (a payment stored before versions were recorded) counts as 2.4.
	APIVersion APIVersion `json:"apiVersion,omitempty"`
}

// Plan is what the scenario rule chosen at creation dictates: the
// authorization (replayed at 3DS resume), captures, refunds and dispute, and
// the processor account that authorized.
type Plan struct {
	Rule    string           `json:"rule,omitempty"`
	Why     string           `json:"why,omitempty"`
	Steps   []AuthStep       `json:"steps,omitempty"`
	Capture *CaptureDecision `json:"capture,omitempty"`
	Refund  *RefundDecision  `json:"refund,omitempty"`
	Dispute *DisputeDecision `json:"dispute,omitempty"`
	// Account is the processor account that authorized the payment.
	Account *ProcessorAccount `json:"account,omitempty"`
}

// PlanOf keeps what a decision says about the payment's future.
func PlanOf(d AuthorizeDecision) *Plan {
	return &Plan{Rule: d.Rule, Why: d.Why, Steps: d.Steps, Capture: d.Capture, Refund: d.Refund, Dispute: d.Dispute}
}

// Decision rebuilds the authorize decision a plan was made from (3DS resume).
func (pl *Plan) Decision() AuthorizeDecision {
	return AuthorizeDecision{Rule: pl.Rule, Why: pl.Why, ThreeDS: ThreeDSNone, Steps: pl.Steps, Capture: pl.Capture, Refund: pl.Refund, Dispute: pl.Dispute}
}

// PaymentMethod is paymentMethod of a payment.
type PaymentMethod struct {
	PaymentType        string        `json:"paymentType,omitempty"`
	PaymentMethodToken string        `json:"paymentMethodToken"`
	IsVaulted          bool          `json:"isVaulted"`
	AuthorizationType  string        `json:"authorizationType,omitempty"`
	Descriptor         string        `json:"descriptor,omitempty"`
	AnalyticsID        string        `json:"analyticsId,omitempty"`
	PaymentMethodType  string        `json:"paymentMethodType"`
	Data               CardData      `json:"paymentMethodData"`
	ThreeDSecure       *ThreeDSecure `json:"threeDSecureAuthentication,omitempty"`
	VaultOnSuccess     bool          `json:"vaultOnSuccess,omitempty"`
	FirstPaymentReason string        `json:"firstPaymentReason,omitempty"`
	VaultOnAgreement   bool          `json:"vaultOnAgreement,omitempty"`
}

// ThreeDSecure is threeDSecureAuthentication.
type ThreeDSecure struct {
	ResponseCode    string `json:"responseCode"`
	ReasonCode      string `json:"reasonCode,omitempty"`
	ReasonText      string `json:"reasonText,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ChallengeIssued bool   `json:"challengeIssued"`
}

// ProcessorState is processor of a payment.
type ProcessorState struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured"`
	AmountRefunded      int64  `json:"amountRefunded"`
}

// Transaction is one processor transaction (a SALE or a REFUND).
type Transaction struct {
	ID                     string             `json:"id"`
	Type                   string             `json:"type"`
	Date                   time.Time          `json:"date"`
	Amount                 int64              `json:"amount"`
	CurrencyCode           string             `json:"currencyCode"`
	ProcessorStatus        PaymentStatus      `json:"processorStatus"`
	ProcessorStatusReason  *StatusReason      `json:"processorStatusReason,omitempty"`
	ProcessorName          string             `json:"processorName"`
	ProcessorMerchantID    string             `json:"processorMerchantId"`
	ProcessorTransactionID string             `json:"processorTransactionId"`
	CardTokenType          string             `json:"cardTokenType,omitempty"`
	AuthorizationCode      string             `json:"authorizationCode,omitempty"`
	Reason                 string             `json:"reason,omitempty"`
	Events                 []TransactionEvent `json:"events,omitempty"`
	CaptureEventID         string             `json:"captureEventId,omitempty"` // a targeted refund's capture
	// Allocations is how a refund is spread over capture events (event id -> amount).
	Allocations map[string]int64 `json:"allocations,omitempty"`
}

// TransactionEvent is one event of a transaction; each capture has its own.
type TransactionEvent struct {
	ID       string    `json:"id"`
	Date     time.Time `json:"date"`
	Type     string    `json:"type"`
	Amount   *int64    `json:"amount,omitempty"`
	Final    *bool     `json:"final,omitempty"`
	Refunded int64     `json:"refunded,omitempty"` // refunded or pending refund against this capture
}

// RequiredAction is what the payment waits for.
type RequiredAction struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ClientToken string `json:"clientToken,omitempty"`
}

// AuthorizationRisk is the riskData an authorization records (authorized
// or declined by a processor): the fraud check (THREE_DS before
// authorization when the payment asked for 3DS), the CVV check (MATCHED when
// a CVV came with the card; vaulted, merchant-initiated payments and cards
// sent without one are NOT_PROVIDED) and the AVS check. The store keeps a
// payment whose riskData is this by a flag only.
func (p *Payment) AuthorizationRisk() *RiskData {
	pre, cvv := "ACCEPT", "NOT_PROVIDED"
	if p.PaymentMethod.ThreeDSecure != nil {
		pre = "THREE_DS"
	}
	if p.CVVGiven {
		cvv = "MATCHED"
	}
	return newRiskData(
		&FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: pre, PostAuthorizationResult: "ACCEPT"},
		&RiskCheck{Source: "PROCESSOR", Result: cvv},
		&AVSCheck{Source: "PROCESSOR", Result: AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}})
}

// newRiskData is riskData with copies of the checks given (nil: absent),
// made in one allocation: the four values live and die together.
func newRiskData(fraud *FraudChecks, cvv *RiskCheck, avs *AVSCheck) *RiskData {
	b := &struct {
		RiskData
		fraud FraudChecks
		cvv   RiskCheck
		avs   AVSCheck
	}{}
	if fraud != nil {
		b.fraud, b.FraudChecks = *fraud, &b.fraud
	}
	if cvv != nil {
		b.cvv, b.CVVCheck = *cvv, &b.cvv
	}
	if avs != nil {
		b.avs, b.AVSCheck = *avs, &b.avs
	}
	return &b.RiskData
}

// RiskData is riskData of a payment.
type RiskData struct {
	FraudChecks *FraudChecks `json:"fraudChecks,omitempty"`
	CVVCheck    *RiskCheck   `json:"cvvCheck,omitempty"`
	AVSCheck    *AVSCheck    `json:"avsCheck,omitempty"`
}

// FraudChecks is riskData.fraudChecks.
type FraudChecks struct {
	Source                  string `json:"source"`
	PreAuthorizationResult  string `json:"preAuthorizationResult,omitempty"`
	PostAuthorizationResult string `json:"postAuthorizationResult,omitempty"`
}

// RiskCheck is riskData.cvvCheck.
type RiskCheck struct {
	Source string `json:"source"`
	Result string `json:"result"`
}

// AVSCheck is riskData.avsCheck.
type AVSCheck struct {
	Source string    `json:"source"`
	Result AVSResult `json:"result"`
}

// AVSResult is riskData.avsCheck.result.
type AVSResult struct {
	StreetAddress string `json:"streetAddress"`
	PostalCode    string `json:"postalCode"`
}

// ThreeDSState is a 3DS challenge in progress.
type ThreeDSState struct {
	ChallengeToken string `json:"challengeToken"`
	Result         string `json:"result,omitempty"`      // AUTH_SUCCESS | AUTH_FAILED once the shopper answered
	ResumeToken    string `json:"resumeToken,omitempty"` // handed out with the result
}

// TimeoutState is a gateway timeout in progress: the payment resolves at ResolveAt.
type TimeoutState struct {
	ResolveTo PaymentStatus `json:"resolveTo"`
	ResolveAt time.Time     `json:"resolveAt"`
	// RequestID is the request the timeout answered 504 (empty when none,
	// such as an authorization run in the background): the migration note
	// of its resolution names it.
	RequestID string `json:"requestId,omitempty"`
}

// RequiredAction names.
const ActionThreeDS = "3DS_AUTHENTICATION"

// Captured and Refunded read the processor counters.
func (p *Payment) Captured() int64 {
	if p.Processor == nil {
		return 0
	}
	return p.Processor.AmountCaptured
}

func (p *Payment) Refunded() int64 {
	if p.Processor == nil {
		return 0
	}
	return p.Processor.AmountRefunded
}

// AllocateRefund spreads amt over the capture events (the targeted one, else
// oldest first) and marks it against them.
func (p *Payment) AllocateRefund(amt int64, eventID string) map[string]int64 {
	alloc := map[string]int64{}
	for i := range p.Transactions {
		for j := range p.Transactions[i].Events {
			ev := &p.Transactions[i].Events[j]
			if ev.Type != EventCaptureSucceeded || (eventID != "" && ev.ID != eventID) || amt == 0 {
				continue
			}
			take := min(*ev.Amount-ev.Refunded, amt)
			if take > 0 {
				ev.Refunded += take
				alloc[ev.ID] = take
				amt -= take
			}
		}
	}
	return alloc
}

// ReleaseRefund undoes AllocateRefund for a refund that failed.
func (p *Payment) ReleaseRefund(alloc map[string]int64) {
	for id, n := range alloc {
		if ev := p.CaptureEvent(id); ev != nil {
			ev.Refunded -= n
		}
	}
}

// Sale returns the SALE transaction of the current processor, if any.
func (p *Payment) Sale() *Transaction {
	for i := len(p.Transactions) - 1; i >= 0; i-- {
		if p.Transactions[i].Type == TxnSale {
			return &p.Transactions[i]
		}
	}
	return nil
}

// CaptureEvent finds a capture event by id.
func (p *Payment) CaptureEvent(id string) *TransactionEvent {
	for i := range p.Transactions {
		t := &p.Transactions[i]
		for j := range t.Events {
			if t.Events[j].ID == id && t.Events[j].Type == EventCaptureSucceeded {
				return &t.Events[j]
			}
		}
	}
	return nil
}

// pendingRefunds is the total of refunds still PENDING.
func (p *Payment) pendingRefunds() int64 {
	var n int64
	for _, t := range p.Transactions {
		if t.Type == TxnRefund && t.ProcessorStatus == StatusPending {
			n += t.Amount
		}
	}
	return n
}

// Refundable is what may still be refunded: captured less refunded and pending refunds.
func (p *Payment) Refundable() int64 { return p.Captured() - p.Refunded() - p.pendingRefunds() }

// CheckAuthorize is the state machine for authorize: only a PENDING payment
// with no challenge or timeout in progress.
func (p *Payment) CheckAuthorize() error {
	switch {
	case p.Status == StatusAuthorized:
		return Errorf(CodePaymentAlreadyAuthorized, "The payment has already been authorized").WithPayment(p)
	case p.Status != StatusPending:
		return Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be authorized", lower(p.Status)).WithPayment(p)
	case p.ThreeDS != nil || p.Timeout != nil || p.Processor != nil:
		return Errorf(CodeInvalidPaymentStatus, "The payment is already being processed").WithPayment(p)
	}
	return nil
}

// CheckCapture validates a capture of amount (nil: the rest) and returns the
// amount to capture.
func (p *Payment) CheckCapture(amount *int64) (int64, error) {
	switch {
	case p.Status == StatusAuthorized:
	case p.Status == StatusPartiallySettled && !p.FinalCaptured:
	default:
		return 0, Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be captured", lower(p.Status)).WithPayment(p)
	}
	if err := p.checkTransactionRoom("PaymentCaptureAPIRequest"); err != nil {
		return 0, err
	}
	rest := p.Authorized - p.Captured()
	if amount == nil {
		return rest, nil
	}
	if *amount <= 0 || *amount > rest {
		return 0, ValidationError("PaymentCaptureAPIRequest", FieldError{Path: "$.amount",
			Description: fmt.Sprintf("The capture amount must be between 1 and the %d that is left to capture", rest)})
	}
	return *amount, nil
}

// CheckCancel: a PENDING or AUTHORIZED payment can be cancelled.
func (p *Payment) CheckCancel() error {
	if p.Status == StatusPending || p.Status == StatusAuthorized {
		return nil
	}
	return Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be cancelled", lower(p.Status)).WithPayment(p)
}

// CheckRefund validates a refund and returns its amount. eventID targets a capture.
func (p *Payment) CheckRefund(amount *int64, eventID string) (int64, error) {
	if p.Status != StatusSettled && p.Status != StatusPartiallySettled {
		return 0, Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be refunded", lower(p.Status)).WithPayment(p)
	}
	if err := p.checkTransactionRoom("PaymentRefundAPIRequest"); err != nil {
		return 0, err
	}
	left := p.Refundable()
	if eventID != "" {
		ev := p.CaptureEvent(eventID)
		if ev == nil {
			return 0, ValidationError("PaymentRefundAPIRequest", FieldError{Path: "$.transactionEventId",
				Description: "No capture of this payment has this transactionEventId"})
		}
		if evLeft := *ev.Amount - ev.Refunded; evLeft < left {
			left = evLeft
		}
	}
	if left <= 0 {
		return 0, Errorf(CodePaymentAlreadyRefunded,
			"Cannot refund this payment because the payment has already been fully refunded.").WithPayment(p)
	}
	if amount == nil {
		return left, nil
	}
	if *amount <= 0 {
		return 0, ValidationError("PaymentRefundAPIRequest", FieldError{Path: "$.amount", Description: "The refund amount must be greater than 0"})
	}
	if *amount > left {
		return 0, Errorf(CodeUnprocessableRefundAmount,
			"Cannot refund this payment with the amount %d. The refund amount must be less than or equal to the amount left to refund (%d).", *amount, left).WithPayment(p)
	}
	return *amount, nil
}

// CheckResume: only a payment waiting on a 3DS challenge can be resumed, with
// the resumeToken handed out when the shopper answered.
func (p *Payment) CheckResume(resumeToken string) error {
	if p.Status != StatusPending || p.ThreeDS == nil {
		return Errorf(CodeInvalidPaymentStatus, "There is nothing to resume on a %s payment", lower(p.Status)).WithPayment(p)
	}
	if p.ThreeDS.Result == "" || p.ThreeDS.ResumeToken != resumeToken {
		return ValidationError("PaymentResumeAPIRequest", FieldError{Path: "$.resumeToken",
			Description: "The resumeToken does not match a completed challenge of this payment"})
	}
	return nil
}

func lower(s PaymentStatus) string {
	switch s {
	case StatusPartiallySettled:
		return "partially settled"
	}
	b := []byte(string(s))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
