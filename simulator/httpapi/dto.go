package httpapi

import (
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Wire DTOs. The domain is mapped field by field where the wire differs
// (the payment response says `type` and `email`, webhooks later say
// `transactionType` and `emailAddress`); session content (order, customer
// with emailAddress, payment-method options) has the same shape on the wire
// as in simulator.SessionData, whose JSON names are the wire names.

func ts(t time.Time) string { return simulator.FormatTime(t) }

func tsPtr(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ts(t)
}

// Client sessions.

type sessionDTO struct {
	ClientToken               string                          `json:"clientToken,omitempty"`
	ClientTokenExpirationDate string                          `json:"clientTokenExpirationDate,omitempty"`
	CustomerID                string                          `json:"customerId,omitempty"`
	OrderID                   string                          `json:"orderId,omitempty"`
	CurrencyCode              string                          `json:"currencyCode,omitempty"`
	Amount                    *int64                          `json:"amount,omitempty"`
	Metadata                  map[string]any                  `json:"metadata,omitempty"`
	Customer                  *simulator.Customer             `json:"customer,omitempty"`
	Order                     *simulator.Order                `json:"order,omitempty"`
	PaymentMethod             *simulator.SessionPaymentMethod `json:"paymentMethod,omitempty"`
	ApprovalMode              *string                         `json:"approvalMode,omitempty"` // always on 2.4 (even empty), never below
	CurrentAttemptID          string                          `json:"currentAttemptId,omitempty"`
}

// toSessionDTO renders a session as version v answers it: below 2.4 with
// no approvalMode or currentAttemptId.
func toSessionDTO(cs *simulator.ClientSession, v simulator.APIVersion, withToken bool) sessionDTO {
	d := cs.Data
	out := sessionDTO{
		CustomerID: d.CustomerID, OrderID: d.OrderID, CurrencyCode: d.CurrencyCode, Amount: d.Amount,
		Metadata: d.Metadata, Customer: d.Customer, Order: orderFor(d.Order, v), PaymentMethod: d.PaymentMethod,
		CurrentAttemptID: cs.CurrentAttemptID,
	}
	if v.Has(simulator.DiffAnswerShape) {
		out.CurrentAttemptID = ""
	} else {
		mode := string(cs.ApprovalMode)
		out.ApprovalMode = &mode
	}
	if out.Amount == nil {
		if total, ok, err := d.TotalAmount(); ok && err == nil {
			out.Amount = &total
		}
	}
	if withToken {
		out.ClientToken, out.ClientTokenExpirationDate = cs.ClientToken, ts(cs.ExpiresAt)
	}
	return out
}

// Cards and instruments.

type cardDTO struct {
	First6Digits       *string           `json:"first6Digits"`
	Last4Digits        string            `json:"last4Digits"`
	ExpirationMonth    string            `json:"expirationMonth"`
	ExpirationYear     string            `json:"expirationYear"`
	CardholderName     string            `json:"cardholderName,omitempty"`
	Network            string            `json:"network"`
	IsNetworkTokenized bool              `json:"isNetworkTokenized"`
	BinData            simulator.BinData `json:"binData"`
}

func toCardDTO(d simulator.CardData) cardDTO {
	out := cardDTO{
		Last4Digits: d.Last4Digits, ExpirationMonth: d.ExpirationMonth, ExpirationYear: d.ExpirationYear,
		CardholderName: d.CardholderName, Network: d.Network, IsNetworkTokenized: d.IsNetworkTokenized, BinData: d.BinData,
	}
	if d.First6Digits != "" {
		f := d.First6Digits
		out.First6Digits = &f
	}
	return out
}

type tokenizeDTO struct {
	Token                 string  `json:"token"`
	TokenType             string  `json:"tokenType"`
	PaymentInstrumentType string  `json:"paymentInstrumentType"`
	PaymentInstrumentData cardDTO `json:"paymentInstrumentData"`
	AnalyticsID           string  `json:"analyticsId"`
	IsVaulted             bool    `json:"isVaulted"`
	PaymentAttemptID      string  `json:"paymentAttemptId,omitempty"`
}

// instrumentDTO is the vendor's MerchantPaymentMethodTokenAPIResponse.
type instrumentDTO struct {
	CreatedAt         string  `json:"createdAt"`
	DeletedAt         string  `json:"deletedAt,omitempty"`
	Deleted           bool    `json:"deleted"`
	Token             string  `json:"token"`
	TokenType         string  `json:"tokenType"`
	AnalyticsID       string  `json:"analyticsId"`
	PaymentMethodType string  `json:"paymentMethodType"`
	PaymentMethodData cardDTO `json:"paymentMethodData"`
	CustomerID        string  `json:"customerId,omitempty"`
	Default           bool    `json:"default"`
	IsVerified        bool    `json:"isVerified"`
}

func toInstrumentDTO(in *simulator.Instrument, first6 bool) instrumentDTO {
	return instrumentDTO{
		CreatedAt: ts(in.CreatedAt), DeletedAt: tsPtr(in.DeletedAt), Deleted: in.Deleted,
		Token: in.Token, TokenType: string(in.TokenType), AnalyticsID: in.AnalyticsID,
		PaymentMethodType: simulator.PaymentMethodTypeCard, PaymentMethodData: toCardDTO(in.CardData(first6)),
		CustomerID: in.CustomerID, Default: in.Default, IsVerified: in.Verified,
	}
}

// Payments.

type paymentDTO struct {
	ID             string                  `json:"id"`
	Date           string                  `json:"date"`
	DateUpdated    string                  `json:"dateUpdated"`
	Status         string                  `json:"status"`
	OrderID        string                  `json:"orderId"`
	CurrencyCode   string                  `json:"currencyCode"`
	Amount         int64                   `json:"amount"`
	CustomerID     string                  `json:"customerId,omitempty"`
	Customer       *paymentCustomerDTO     `json:"customer,omitempty"`
	Order          *simulator.Order        `json:"order,omitempty"`
	CardTokenType  string                  `json:"cardTokenType,omitempty"`
	PaymentMethod  paymentMethodDTO        `json:"paymentMethod"`
	Processor      *processorDTO           `json:"processor,omitempty"`
	Transactions   []transactionDTO        `json:"transactions"`
	Metadata       map[string]any          `json:"metadata,omitempty"`
	RequiredAction *requiredActionDTO      `json:"requiredAction,omitempty"`
	StatusReason   *simulator.StatusReason `json:"statusReason,omitempty"`
	RiskData       *simulator.RiskData     `json:"riskData,omitempty"`
}

// paymentCustomerDTO is the customer of a payment response: email, not emailAddress.
type paymentCustomerDTO struct {
	Email              string             `json:"email,omitempty"`
	MobileNumber       string             `json:"mobileNumber,omitempty"`
	FirstName          string             `json:"firstName,omitempty"`
	LastName           string             `json:"lastName,omitempty"`
	BillingAddress     *simulator.Address `json:"billingAddress,omitempty"`
	ShippingAddress    *simulator.Address `json:"shippingAddress,omitempty"`
	TaxID              string             `json:"taxId,omitempty"`
	NationalDocumentID string             `json:"nationalDocumentId,omitempty"`
}

type paymentMethodDTO struct {
	PaymentType                string                  `json:"paymentType,omitempty"`
	PaymentMethodToken         string                  `json:"paymentMethodToken"`
	IsVaulted                  bool                    `json:"isVaulted"`
	AuthorizationType          string                  `json:"authorizationType,omitempty"`
	Descriptor                 string                  `json:"descriptor,omitempty"`
	AnalyticsID                string                  `json:"analyticsId,omitempty"`
	PaymentMethodType          string                  `json:"paymentMethodType"`
	PaymentMethodData          cardDTO                 `json:"paymentMethodData"`
	ThreeDSecureAuthentication *simulator.ThreeDSecure `json:"threeDSecureAuthentication,omitempty"`
}

type processorDTO struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured"`
	AmountRefunded      int64  `json:"amountRefunded"`
}

type transactionDTO struct {
	Type            string `json:"type"`
	Date            string `json:"date"`
	Amount          int64  `json:"amount"`
	CurrencyCode    string `json:"currencyCode"`
	ProcessorStatus string `json:"processorStatus"`
	// ProcessorStatusReason: only on a DECLINED or FAILED transaction (vendor schema).
	ProcessorStatusReason  *simulator.StatusReason `json:"processorStatusReason,omitempty"`
	ProcessorName          string                  `json:"processorName"`
	ProcessorMerchantID    string                  `json:"processorMerchantId"`
	ProcessorTransactionID string                  `json:"processorTransactionId"`
	CardTokenType          string                  `json:"cardTokenType,omitempty"`
	AuthorizationCode      string                  `json:"authorizationCode,omitempty"`
	Reason                 string                  `json:"reason,omitempty"`
	Events                 []eventDTO              `json:"events,omitempty"`
}

type eventDTO struct {
	ID     string `json:"id"`
	Date   string `json:"date"`
	Type   string `json:"type"`
	Amount *int64 `json:"amount,omitempty"`
	Final  *bool  `json:"final,omitempty"`
}

type requiredActionDTO struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ClientToken string `json:"clientToken,omitempty"`
	// ChallengeURL is the sandbox's challenge page for a 3DS challenge
	// (Options.ChallengePage), on the request's host; writeJSON fills it.
	ChallengeURL string `json:"challengeUrl,omitempty"`
}

// toPaymentDTO renders a payment as version v answers it: below 2.4 with no
// transactions[].authorizationCode and no transactions[].events.
func toPaymentDTO(p *simulator.Payment, v simulator.APIVersion, withEvents bool) paymentDTO {
	var out paymentDTO
	fillPaymentDTO(&out, &paymentParts{}, p, v, withEvents)
	return out
}

// paymentParts is what a payment DTO points to besides the payment's own
// values: its processor, customer and required action, and its
// transactions. A pooled answer encoder keeps one, reused from answer to
// answer (answerEncoder.payment).
type paymentParts struct {
	processor    processorDTO
	customer     paymentCustomerDTO
	required     requiredActionDTO
	transactions []transactionDTO
	times        timeTexts
}

// reset drops what parts refers to, keeping the room of the transactions
// and of the times.
func (parts *paymentParts) reset() {
	clear(parts.transactions)
	*parts = paymentParts{transactions: parts.transactions[:0], times: parts.times.emptied()}
}

// timeTexts are an answer's times in simulator.TimeFormat, made as one
// string that each time's text is a part of: one allocation per answer
// instead of one per time.
type timeTexts struct {
	buf  []byte
	ends []int
	text string
}

func (tt *timeTexts) add(t time.Time) {
	tt.buf = t.UTC().AppendFormat(tt.buf, simulator.TimeFormat)
	tt.ends = append(tt.ends, len(tt.buf))
}

// done makes the string; at(i) is then the text of the i-th time added.
func (tt *timeTexts) done() { tt.text = string(tt.buf) }

func (tt *timeTexts) at(i int) string {
	start := 0
	if i > 0 {
		start = tt.ends[i-1]
	}
	return tt.text[start:tt.ends[i]]
}

func (tt timeTexts) emptied() timeTexts { return timeTexts{buf: tt.buf[:0], ends: tt.ends[:0]} }

// fillPaymentDTO sets *out to toPaymentDTO(p, v, withEvents), its
// processor, customer, required action and transactions in parts.
func fillPaymentDTO(out *paymentDTO, parts *paymentParts, p *simulator.Payment, v simulator.APIVersion, withEvents bool) {
	legacy := v.Has(simulator.DiffAnswerShape)
	withEvents = withEvents && !legacy
	times := &parts.times
	*times = times.emptied()
	times.add(p.Date)
	times.add(p.DateUpdated)
	for _, t := range p.Transactions {
		times.add(t.Date)
		if withEvents {
			for _, e := range t.Events {
				times.add(e.Date)
			}
		}
	}
	times.done()
	next := 2 // the next time's index in times
	*out = paymentDTO{
		ID: p.ID, Date: times.at(0), DateUpdated: times.at(1), Status: string(p.Status),
		OrderID: p.OrderID, CurrencyCode: p.CurrencyCode, Amount: p.Amount, CustomerID: p.CustomerID,
		Order: orderFor(p.Order, v), CardTokenType: p.CardTokenType, Metadata: p.Metadata,
		StatusReason: p.StatusReason, RiskData: p.RiskData, Transactions: parts.transactions[:0],
		PaymentMethod: paymentMethodDTO{
			PaymentType: p.PaymentMethod.PaymentType, PaymentMethodToken: p.PaymentMethod.PaymentMethodToken,
			IsVaulted: p.PaymentMethod.IsVaulted, AuthorizationType: p.PaymentMethod.AuthorizationType,
			Descriptor: p.PaymentMethod.Descriptor, AnalyticsID: p.PaymentMethod.AnalyticsID,
			PaymentMethodType: p.PaymentMethod.PaymentMethodType, PaymentMethodData: toCardDTO(p.PaymentMethod.Data),
			ThreeDSecureAuthentication: p.PaymentMethod.ThreeDSecure,
		},
	}
	if out.Transactions == nil {
		out.Transactions = []transactionDTO{} // [] on the wire, not null
	}
	if c := p.Customer; c != nil {
		parts.customer = paymentCustomerDTO{
			Email: c.EmailAddress, MobileNumber: c.MobileNumber, FirstName: c.FirstName, LastName: c.LastName,
			BillingAddress: c.BillingAddress, ShippingAddress: c.ShippingAddress, TaxID: c.TaxID, NationalDocumentID: c.NationalDocumentID,
		}
		out.Customer = &parts.customer
	}
	if pr := p.Processor; pr != nil {
		parts.processor = processorDTO{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
		out.Processor = &parts.processor
	}
	if ra := p.Required; ra != nil {
		parts.required = requiredActionDTO{Name: ra.Name, Description: ra.Description, ClientToken: ra.ClientToken}
		out.RequiredAction = &parts.required
	}
	for _, t := range p.Transactions {
		td := transactionDTO{
			Type: t.Type, Date: times.at(next), Amount: t.Amount, CurrencyCode: t.CurrencyCode,
			ProcessorStatus: string(t.ProcessorStatus), ProcessorName: t.ProcessorName,
			ProcessorMerchantID: t.ProcessorMerchantID, ProcessorTransactionID: t.ProcessorTransactionID,
			CardTokenType: t.CardTokenType, AuthorizationCode: t.AuthorizationCode, Reason: t.Reason,
		}
		if legacy {
			td.AuthorizationCode = ""
		}
		if t.ProcessorStatus == simulator.StatusDeclined || t.ProcessorStatus == simulator.StatusFailed {
			td.ProcessorStatusReason = t.ProcessorStatusReason
		}
		next++
		if withEvents {
			td.Events = []eventDTO{}
			for _, e := range t.Events {
				td.Events = append(td.Events, eventDTO{ID: e.ID, Date: times.at(next), Type: e.Type, Amount: e.Amount, Final: e.Final})
				next++
			}
		}
		out.Transactions = append(out.Transactions, td)
	}
	parts.transactions = out.Transactions
}

// paymentSummaryDTO is one item of GET /payments.
type paymentSummaryDTO struct {
	ID           string               `json:"id"`
	Date         string               `json:"date"`
	DateUpdated  string               `json:"dateUpdated"`
	Status       string               `json:"status"`
	OrderID      string               `json:"orderId"`
	Processor    *summaryProcessorDTO `json:"processor,omitempty"`
	CurrencyCode string               `json:"currencyCode"`
	Amount       int64                `json:"amount"`
	Metadata     map[string]any       `json:"metadata,omitempty"`
}

type summaryProcessorDTO struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId,omitempty"`
}

type paymentListDTO struct {
	Data       []paymentSummaryDTO `json:"data"`
	NextCursor string              `json:"nextCursor,omitempty"`
	PrevCursor string              `json:"prevCursor,omitempty"`
}

func toSummaryDTO(p *simulator.Payment) paymentSummaryDTO {
	out := paymentSummaryDTO{
		ID: p.ID, Date: ts(p.Date), DateUpdated: ts(p.DateUpdated), Status: string(p.Status),
		OrderID: p.OrderID, CurrencyCode: p.CurrencyCode, Amount: p.Amount, Metadata: p.Metadata,
	}
	if p.Processor != nil {
		out.Processor = &summaryProcessorDTO{Name: p.Processor.Name, ProcessorMerchantID: p.Processor.ProcessorMerchantID}
	}
	return out
}

// Payment attempts.

type approveDTO struct {
	PaymentAttemptID  string `json:"paymentAttemptId"`
	MerchantPaymentID string `json:"merchantPaymentId"`
}

type attemptStatusDTO struct {
	PaymentAttemptID string `json:"paymentAttemptId"`
	Status           string `json:"status"`
}

type attemptDTO struct {
	PaymentAttemptID string `json:"paymentAttemptId"`
	ClientSessionID  string `json:"clientSessionId"`
	Status           string `json:"status"`
	ExpiresAt        string `json:"expiresAt"`
	PaymentID        string `json:"paymentId,omitempty"` // left out until approval (optional fields with no value are left out)
}

func toAttemptDTO(a *simulator.Attempt) attemptDTO {
	return attemptDTO{PaymentAttemptID: a.ID, ClientSessionID: a.SessionID, Status: string(a.Status), ExpiresAt: ts(a.ExpiresAt), PaymentID: a.PaymentID}
}

// orderFor is o as version v answers it: below 2.2 its line items have no
// productData (a copy; o is shared).
func orderFor(o *simulator.Order, v simulator.APIVersion) *simulator.Order {
	if o == nil || len(o.LineItems) == 0 || !v.Has(simulator.DiffProductData) {
		return o
	}
	c := *o
	c.LineItems = make([]simulator.LineItem, len(o.LineItems))
	for i, li := range o.LineItems {
		li.ProductData = nil
		c.LineItems[i] = li
	}
	return &c
}
