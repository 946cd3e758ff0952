package webhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/paysandbox/paysandbox/simulator"
)

// Version is the payload version of the bodies of events that name none
// (made before events kept their version).
const Version = string(simulator.CurrentAPIVersion)

// Renderer renders event bodies for the kernel's readers; it implements
// simulator.EventRenderer. The dispatcher renders what it sends with the
// same functions.
type Renderer struct{}

var _ simulator.EventRenderer = Renderer{}

// Body implements simulator.EventRenderer: ev's body with signedAt empty.
func (Renderer) Body(ev *simulator.Event) (json.RawMessage, error) { return render(ev, "") }

// Sent implements simulator.EventRenderer: the body attempt a sent, nil
// when it sent nothing.
func (Renderer) Sent(ev *simulator.Event, a simulator.DeliveryAttempt) (json.RawMessage, error) {
	if a.SignedAt == "" {
		return nil, nil
	}
	return render(ev, a.SignedAt)
}

// signedAtOf is the signedAt of a body signed at t: unix seconds as a
// string, as the vendor sends it.
func signedAtOf(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// render is ev's webhook body signed at signedAt ("" before any attempt),
// rendered from what the event carries (Event.Payment, Event.Dispute) and
// nothing else, so every attempt and replay sends the same bytes but for
// signedAt. An event stored in the body form carries its rendered body
// instead: that is sent as stored, with its signedAt slot filled.
func render(ev *simulator.Event, signedAt string) (json.RawMessage, error) {
	v := ev.Version.Or()
	if !v.Valid() {
		return nil, fmt.Errorf("%s event %s has unknown webhook version %q", ev.Type, ev.ID, v)
	}
	var body any
	switch {
	case ev.Payment == nil && ev.Dispute == nil:
		if len(ev.Body) == 0 {
			return nil, fmt.Errorf("%s event %s carries no body", ev.Type, ev.ID)
		}
		return stamp(ev.Body, signedAt), nil
	case ev.Type == simulator.EventPaymentStatus || ev.Type == simulator.EventPaymentRefund:
		if ev.Payment == nil {
			return nil, fmt.Errorf("%s without a payment", ev.Type)
		}
		body = paymentEventBody{
			EventType: ev.Type, Date: ts(ev.CreatedAt), SignedAt: signedAt,
			NotificationConfig: notificationConfig(ev.TenantID), Version: string(v), Payment: toPaymentDTO(ev.Payment, v),
		}
	case ev.Type == simulator.EventDisputeOpened:
		if ev.Dispute == nil {
			return nil, fmt.Errorf("%s without a dispute", ev.Type)
		}
		body = toDisputeOpened(ev, ev.Dispute, signedAt, v)
	case ev.Type == simulator.EventDisputeStatus:
		if ev.Dispute == nil {
			return nil, fmt.Errorf("%s without a dispute", ev.Type)
		}
		body = toDisputeStatus(ev, ev.Dispute, signedAt, v)
	default:
		return nil, fmt.Errorf("unknown event type %q", ev.Type)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// signedAtSlot is the placeholder the bodies stored in the body form
// carry, before any field whose value comes from outside; stamp fills it.
const signedAtSlot = `"signedAt":""`

// stamp is a stored body with its signedAt slot set to signedAt (the body
// as it is when signedAt is ""). Bodies without the slot are returned as
// they are.
func stamp(body []byte, signedAt string) []byte {
	i := bytes.Index(body, []byte(signedAtSlot))
	if i < 0 || signedAt == "" {
		return body
	}
	v := `"signedAt":"` + signedAt + `"`
	out := make([]byte, 0, len(body)+len(signedAt))
	out = append(out, body[:i]...)
	out = append(out, v...)
	return append(out, body[i+len(signedAtSlot):]...)
}

const notificationConfigDescription = "paysandbox webhook endpoint"

// notificationConfig is the tenant's one endpoint configuration: its id is a
// uuid derived from the tenant id, so it is stable across restarts.
func notificationConfig(tenantID string) notificationConfigDTO {
	return notificationConfigDTO{
		ID:          uuid.NewSHA1(uuid.NameSpaceURL, []byte("paysandbox:tenant:"+tenantID)).String(),
		Description: notificationConfigDescription,
	}
}

func ts(t time.Time) string { return simulator.FormatTime(t) }

// Payment bodies (PAYMENT.STATUS, PAYMENT.REFUND): the DTOs below, mapped
// field by field from the domain by toPaymentDTO.

type paymentEventBody struct {
	EventType          string                `json:"eventType"`
	Date               string                `json:"date"`
	SignedAt           string                `json:"signedAt"`
	NotificationConfig notificationConfigDTO `json:"notificationConfig"`
	Version            string                `json:"version"`
	Payment            paymentDTO            `json:"payment"`
}

type notificationConfigDTO struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// paymentDTO is the webhook payment: no processorData (2.4 replaced it by
// transactions.events), customer.emailAddress, transactions[].transactionType.
// Older versions leave out what Differences (versions.go) lists.
type paymentDTO struct {
	ID            string              `json:"id"`
	Date          string              `json:"date"`
	DateUpdated   string              `json:"dateUpdated"`
	Status        string              `json:"status"`
	OrderID       string              `json:"orderId"`
	CurrencyCode  string              `json:"currencyCode"`
	Amount        int64               `json:"amount"`
	CustomerID    string              `json:"customerId,omitempty"`
	Metadata      map[string]any      `json:"metadata,omitempty"`
	Customer      *customerDTO        `json:"customer,omitempty"`
	PaymentMethod paymentMethodDTO    `json:"paymentMethod"`
	Processor     *processorDTO       `json:"processor,omitempty"`
	StatusReason  *statusReasonDTO    `json:"statusReason,omitempty"`
	Transactions  []transactionDTO    `json:"transactions"`
	RiskData      *simulator.RiskData `json:"riskData,omitempty"`
}

type customerDTO struct {
	EmailAddress       string      `json:"emailAddress,omitempty"`
	MobileNumber       string      `json:"mobileNumber,omitempty"`
	FirstName          string      `json:"firstName,omitempty"`
	LastName           string      `json:"lastName,omitempty"`
	BillingAddress     *addressDTO `json:"billingAddress,omitempty"`
	ShippingAddress    *addressDTO `json:"shippingAddress,omitempty"`
	TaxID              string      `json:"taxId,omitempty"`
	NationalDocumentID string      `json:"nationalDocumentId,omitempty"`
}

type addressDTO struct {
	FirstName    string `json:"firstName,omitempty"`
	LastName     string `json:"lastName,omitempty"`
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	CountryCode  string `json:"countryCode,omitempty"`
	PostalCode   string `json:"postalCode,omitempty"`
}

type paymentMethodDTO struct {
	PaymentType                string           `json:"paymentType,omitempty"`
	PaymentMethodToken         string           `json:"paymentMethodToken"`
	IsVaulted                  *bool            `json:"isVaulted,omitempty"` // nil below 2.2 only
	AuthorizationType          string           `json:"authorizationType,omitempty"`
	Descriptor                 string           `json:"descriptor,omitempty"`
	AnalyticsID                string           `json:"analyticsId,omitempty"`
	PaymentMethodType          string           `json:"paymentMethodType"`
	PaymentMethodData          cardDTO          `json:"paymentMethodData"`
	ThreeDSecureAuthentication *threeDSecureDTO `json:"threeDSecureAuthentication,omitempty"`
}

type cardDTO struct {
	First6Digits       *string    `json:"first6Digits"`
	Last4Digits        string     `json:"last4Digits"`
	ExpirationMonth    string     `json:"expirationMonth"`
	ExpirationYear     string     `json:"expirationYear"`
	CardholderName     string     `json:"cardholderName,omitempty"`
	Network            string     `json:"network"`
	IsNetworkTokenized bool       `json:"isNetworkTokenized"`
	BinData            binDataDTO `json:"binData"`
}

type binDataDTO struct {
	Network                    string `json:"network"`
	IssuerCountryCode          string `json:"issuerCountryCode,omitempty"`
	IssuerName                 string `json:"issuerName,omitempty"`
	IssuerCurrencyCode         string `json:"issuerCurrencyCode,omitempty"`
	RegionalRestriction        string `json:"regionalRestriction"`
	AccountNumberType          string `json:"accountNumberType"`
	AccountFundingType         string `json:"accountFundingType"`
	PrepaidReloadableIndicator string `json:"prepaidReloadableIndicator"`
	ProductUsageType           string `json:"productUsageType"`
	ProductCode                string `json:"productCode"`
	ProductName                string `json:"productName"`
}

type threeDSecureDTO struct {
	ResponseCode    string `json:"responseCode"`
	ReasonCode      string `json:"reasonCode,omitempty"`
	ReasonText      string `json:"reasonText,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ChallengeIssued bool   `json:"challengeIssued"`
}

type processorDTO struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured"`
	AmountRefunded      int64  `json:"amountRefunded"`
}

type statusReasonDTO struct {
	Type        string `json:"type"`
	DeclineType string `json:"declineType,omitempty"`
	Code        string `json:"code,omitempty"`
	Message     string `json:"message,omitempty"`
}

type transactionDTO struct {
	Date                   string           `json:"date"`
	Amount                 int64            `json:"amount"`
	CurrencyCode           string           `json:"currencyCode"`
	OrderID                string           `json:"orderId,omitempty"`
	TransactionType        string           `json:"transactionType"`
	ProcessorTransactionID string           `json:"processorTransactionId"`
	ProcessorName          string           `json:"processorName"`
	ProcessorMerchantID    string           `json:"processorMerchantId"`
	ProcessorStatus        string           `json:"processorStatus"`
	ProcessorStatusReason  *statusReasonDTO `json:"processorStatusReason,omitempty"`
	CardTokenType          string           `json:"cardTokenType,omitempty"`
	AuthorizationCode      string           `json:"authorizationCode,omitempty"`
	Reason                 string           `json:"reason,omitempty"`
	Events                 []eventDTO       `json:"events,omitzero"` // nil below 2.4 only; [] when none
}

type eventDTO struct {
	ID     string `json:"id"`
	Date   string `json:"date"`
	Type   string `json:"type"`
	Amount *int64 `json:"amount,omitempty"`
	Final  *bool  `json:"final,omitempty"`
}

func toStatusReason(r *simulator.StatusReason) *statusReasonDTO {
	if r == nil {
		return nil
	}
	return &statusReasonDTO{Type: r.Type, DeclineType: r.DeclineType, Code: r.Code, Message: r.Message}
}

func toAddress(a *simulator.Address) *addressDTO {
	if a == nil {
		return nil
	}
	return &addressDTO{
		FirstName: a.FirstName, LastName: a.LastName, AddressLine1: a.AddressLine1, AddressLine2: a.AddressLine2,
		City: a.City, State: a.State, CountryCode: a.CountryCode, PostalCode: a.PostalCode,
	}
}

// toPaymentDTO maps p to the webhook payment of version v.
func toPaymentDTO(p *simulator.Payment, v simulator.APIVersion) paymentDTO {
	out := paymentDTO{
		ID: p.ID, Date: ts(p.Date), DateUpdated: ts(p.DateUpdated), Status: string(p.Status),
		OrderID: p.OrderID, CurrencyCode: p.CurrencyCode, Amount: p.Amount, CustomerID: p.CustomerID,
		Metadata: p.Metadata, StatusReason: toStatusReason(p.StatusReason), RiskData: p.RiskData,
		Transactions:  []transactionDTO{},
		PaymentMethod: toPaymentMethodDTO(p.PaymentMethod, v),
	}
	if c := p.Customer; c != nil && !v.WebhookDiffers(simulator.WebhookCustomer) {
		out.Customer = &customerDTO{
			EmailAddress: c.EmailAddress, MobileNumber: c.MobileNumber, FirstName: c.FirstName, LastName: c.LastName,
			BillingAddress: toAddress(c.BillingAddress), ShippingAddress: toAddress(c.ShippingAddress),
			TaxID: c.TaxID, NationalDocumentID: c.NationalDocumentID,
		}
	}
	if pr := p.Processor; pr != nil {
		out.Processor = &processorDTO{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	for _, t := range p.Transactions {
		out.Transactions = append(out.Transactions, toTransactionDTO(p, t, v))
	}
	return out
}

// toPaymentMethodDTO is the payment method of a body of version v (without
// isVaulted where WebhookDifferences says so).
func toPaymentMethodDTO(pm simulator.PaymentMethod, v simulator.APIVersion) paymentMethodDTO {
	card := pm.Data
	var isVaulted *bool
	if !v.WebhookDiffers(simulator.WebhookIsVaulted) {
		isVaulted = &pm.IsVaulted
	}
	out := paymentMethodDTO{
		PaymentType: pm.PaymentType, PaymentMethodToken: pm.PaymentMethodToken, IsVaulted: isVaulted,
		AuthorizationType: pm.AuthorizationType, Descriptor: pm.Descriptor, AnalyticsID: pm.AnalyticsID,
		PaymentMethodType: pm.PaymentMethodType,
		PaymentMethodData: cardDTO{
			Last4Digits: card.Last4Digits, ExpirationMonth: card.ExpirationMonth, ExpirationYear: card.ExpirationYear,
			CardholderName: card.CardholderName, Network: card.Network, IsNetworkTokenized: card.IsNetworkTokenized,
			BinData: binDataDTO{
				Network: card.BinData.Network, IssuerCountryCode: card.BinData.IssuerCountryCode,
				IssuerName: card.BinData.IssuerName, IssuerCurrencyCode: card.BinData.IssuerCurrencyCode,
				RegionalRestriction: card.BinData.RegionalRestriction, AccountNumberType: card.BinData.AccountNumberType,
				AccountFundingType: card.BinData.AccountFundingType, PrepaidReloadableIndicator: card.BinData.PrepaidReloadableIndicator,
				ProductUsageType: card.BinData.ProductUsageType, ProductCode: card.BinData.ProductCode, ProductName: card.BinData.ProductName,
			},
		},
	}
	if card.First6Digits != "" {
		f := card.First6Digits
		out.PaymentMethodData.First6Digits = &f
	}
	if t := pm.ThreeDSecure; t != nil {
		out.ThreeDSecureAuthentication = &threeDSecureDTO{
			ResponseCode: t.ResponseCode, ReasonCode: t.ReasonCode, ReasonText: t.ReasonText,
			ProtocolVersion: t.ProtocolVersion, ChallengeIssued: t.ChallengeIssued,
		}
	}
	return out
}

// toTransactionDTO is one transaction of p in a body of version v (without
// authorizationCode and events where WebhookDifferences says so).
func toTransactionDTO(p *simulator.Payment, t simulator.Transaction, v simulator.APIVersion) transactionDTO {
	td := transactionDTO{
		Date: ts(t.Date), Amount: t.Amount, CurrencyCode: t.CurrencyCode, OrderID: p.OrderID,
		TransactionType: t.Type, ProcessorTransactionID: t.ProcessorTransactionID,
		ProcessorName: t.ProcessorName, ProcessorMerchantID: t.ProcessorMerchantID,
		ProcessorStatus: string(t.ProcessorStatus), ProcessorStatusReason: toStatusReason(t.ProcessorStatusReason),
		CardTokenType: t.CardTokenType, Reason: t.Reason,
	}
	if !v.WebhookDiffers(simulator.WebhookAuthorizationCode) {
		td.AuthorizationCode = t.AuthorizationCode
	}
	if !v.WebhookDiffers(simulator.WebhookTransactionEvents) {
		td.Events = []eventDTO{}
		for _, e := range t.Events {
			td.Events = append(td.Events, eventDTO{ID: e.ID, Date: ts(e.Date), Type: e.Type, Amount: e.Amount, Final: e.Final})
		}
	}
	return td
}

// Dispute bodies.

// disputeOpenedDTO carries the interface spec's DISPUTE.OPENED fields.
type disputeOpenedDTO struct {
	EventType            string                  `json:"eventType"`
	Date                 string                  `json:"date"`
	SignedAt             string                  `json:"signedAt"`
	Version              string                  `json:"version"`
	PlatformAccountID    string                  `json:"platformAccountId"`
	TransactionID        string                  `json:"transactionId"`
	OrderID              string                  `json:"orderId"`
	ProcessorID          string                  `json:"processorId"`
	ProcessorDisputeID   string                  `json:"processorDisputeId"`
	PaymentID            string                  `json:"paymentId"`
	RawProcessorCallback rawProcessorCallbackDTO `json:"raw_processor_callback"`
}

// rawProcessorCallbackDTO is the sandbox processor's own dispute callback,
// passed through as a real processor's would be.
type rawProcessorCallbackDTO struct {
	ID            string `json:"id"`
	Object        string `json:"object"`
	Type          string `json:"type"`
	Reason        string `json:"reason"`
	Amount        int64  `json:"amount"`
	Currency      string `json:"currency"`
	Status        string `json:"status"`
	TransactionID string `json:"transaction"`
	Created       int64  `json:"created"`
}

func toDisputeOpened(ev *simulator.Event, d *simulator.Dispute, signedAt string, v simulator.APIVersion) disputeOpenedDTO {
	return disputeOpenedDTO{
		EventType: ev.Type, Date: ts(ev.CreatedAt), SignedAt: signedAt, Version: string(v), PlatformAccountID: ev.TenantID,
		TransactionID: d.TransactionID, OrderID: d.OrderID, ProcessorID: d.Processor,
		ProcessorDisputeID: d.ID, PaymentID: d.PaymentID,
		RawProcessorCallback: rawProcessorCallbackDTO{
			ID: d.ID, Object: "dispute", Type: "dispute.created", Reason: d.Reason, Amount: d.Amount,
			Currency: d.CurrencyCode, Status: string(simulator.DisputeOpen), TransactionID: d.TransactionID, Created: d.OpenedAt.Unix(),
		},
	}
}

// disputeStatusDTO is the vendor's DisputeStatusWebhookPayload.
type disputeStatusDTO struct {
	EventType          string                  `json:"eventType"`
	Date               string                  `json:"date"`
	SignedAt           string                  `json:"signedAt"`
	Version            string                  `json:"version"`
	Type               string                  `json:"type"`
	Status             string                  `json:"status"`
	PrimerAccountID    string                  `json:"primerAccountId"`
	TransactionID      string                  `json:"transactionId"`
	OrderID            string                  `json:"orderId"`
	PaymentID          string                  `json:"paymentId"`
	PaymentMethod      disputePaymentMethodDTO `json:"paymentMethod"`
	Processor          string                  `json:"processor,omitempty"`
	ProcessorDisputeID string                  `json:"processorDisputeId"`
	ReceivedAt         string                  `json:"receivedAt"`
	Reason             string                  `json:"reason"`
	ProcessorReason    string                  `json:"processorReason"`
	Amount             int64                   `json:"amount"`
	Currency           string                  `json:"currency"`
	MerchantID         string                  `json:"merchantId,omitempty"`
}

type disputePaymentMethodDTO struct {
	PaymentMethodType string                `json:"paymentMethodType,omitempty"`
	PaymentMethodData disputeCardNetworkDTO `json:"paymentMethodData"`
}

type disputeCardNetworkDTO struct {
	Network string `json:"network,omitempty"`
}

func toDisputeStatus(ev *simulator.Event, d *simulator.Dispute, signedAt string, v simulator.APIVersion) disputeStatusDTO {
	return disputeStatusDTO{
		EventType: ev.Type, Date: ts(ev.CreatedAt), SignedAt: signedAt, Version: string(v), Type: d.Type, Status: string(d.Status),
		PrimerAccountID: ev.TenantID, TransactionID: d.TransactionID, OrderID: d.OrderID, PaymentID: d.PaymentID,
		PaymentMethod: disputePaymentMethodDTO{
			PaymentMethodType: d.PaymentMethodType, PaymentMethodData: disputeCardNetworkDTO{Network: d.Network},
		},
		Processor: d.Processor, ProcessorDisputeID: d.ID, ReceivedAt: ts(ev.CreatedAt),
		Reason: d.Reason, ProcessorReason: d.Reason, Amount: d.Amount, Currency: d.CurrencyCode,
		MerchantID: d.ProcessorMerchantID,
	}
}
