package simulator

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// ApprovalMode decides whether tokenising pays at once (AUTO) or waits for the
// merchant's approval of a payment attempt (MANUAL). Fixed at session creation.
type ApprovalMode string

// Approval modes.
const (
	ApprovalAuto   ApprovalMode = "AUTO"
	ApprovalManual ApprovalMode = "MANUAL"
)

// ClientTokenTTL is how long a client token lives, on the tenant's clock.
const ClientTokenTTL = 24 * time.Hour

// ClientSession is a checkout session. Its content (SessionData) is what the
// merchant supplied; the JSON names of the content are the wire names, because
// PATCH merges field by field over them.
type ClientSession struct {
	ID               string       `json:"id"`
	TenantID         string       `json:"tenantId"`
	ClientToken      string       `json:"clientToken"`
	ExpiresAt        time.Time    `json:"expiresAt"`
	CreatedAt        time.Time    `json:"createdAt"`
	ApprovalMode     ApprovalMode `json:"approvalMode"`
	CurrentAttemptID string       `json:"currentAttemptId,omitempty"`
	Data             SessionData  `json:"data"`
}

// Expired reports whether the client token is no longer valid at now.
func (s *ClientSession) Expired(now time.Time) bool { return !now.Before(s.ExpiresAt) }

// SessionData is the merchant-supplied content of a session, also the base a
// payment is made from.
type SessionData struct {
	CustomerID    string                `json:"customerId,omitempty"`
	OrderID       string                `json:"orderId,omitempty"`
	CurrencyCode  string                `json:"currencyCode,omitempty"`
	Amount        *int64                `json:"amount,omitempty"`
	Metadata      map[string]any        `json:"metadata,omitempty"`
	Customer      *Customer             `json:"customer,omitempty"`
	Order         *Order                `json:"order,omitempty"`
	PaymentMethod *SessionPaymentMethod `json:"paymentMethod,omitempty"`
}

// Order is the order of a session or payment.
type Order struct {
	LineItems           []LineItem `json:"lineItems,omitempty"`
	CountryCode         string     `json:"countryCode,omitempty"`
	RetailerCountryCode string     `json:"retailerCountryCode,omitempty"`
	Fees                []Fee      `json:"fees,omitempty"`
	Shipping            *Shipping  `json:"shipping,omitempty"`
}

// LineItem is one line of an order.
type LineItem struct {
	ItemID         string       `json:"itemId,omitempty"`
	Name           string       `json:"name,omitempty"`
	Description    string       `json:"description,omitempty"`
	Amount         *int64       `json:"amount,omitempty"`
	Quantity       *int64       `json:"quantity,omitempty"`
	DiscountAmount *int64       `json:"discountAmount,omitempty"`
	TaxAmount      *int64       `json:"taxAmount,omitempty"`
	TaxCode        string       `json:"taxCode,omitempty"`
	ProductType    string       `json:"productType,omitempty"`
	ProductData    *ProductData `json:"productData,omitempty"`
}

// ProductData describes the product of a line item.
type ProductData struct {
	Sku                    string   `json:"sku,omitempty"`
	Brand                  string   `json:"brand,omitempty"`
	Color                  string   `json:"color,omitempty"`
	GlobalTradeItemNumber  string   `json:"globalTradeItemNumber,omitempty"`
	ManufacturerPartNumber string   `json:"manufacturerPartNumber,omitempty"`
	Weight                 *float64 `json:"weight,omitempty"`
	WeightUnit             string   `json:"weightUnit,omitempty"`
	PageURL                string   `json:"pageUrl,omitempty"`
}

// Fee is an order fee.
type Fee struct {
	Amount      *int64 `json:"amount,omitempty"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Shipping is the shipping of an order.
type Shipping struct {
	Amount            *int64 `json:"amount,omitempty"`
	MethodID          string `json:"methodId,omitempty"`
	MethodName        string `json:"methodName,omitempty"`
	MethodDescription string `json:"methodDescription,omitempty"`
}

// Customer is the shopper. The session and webhooks call the e-mail
// emailAddress; the payment response calls it email (httpapi maps it).
type Customer struct {
	EmailAddress       string   `json:"emailAddress,omitempty"`
	MobileNumber       string   `json:"mobileNumber,omitempty"`
	FirstName          string   `json:"firstName,omitempty"`
	LastName           string   `json:"lastName,omitempty"`
	BillingAddress     *Address `json:"billingAddress,omitempty"`
	ShippingAddress    *Address `json:"shippingAddress,omitempty"`
	TaxID              string   `json:"taxId,omitempty"`
	NationalDocumentID string   `json:"nationalDocumentId,omitempty"`
}

// Address is a postal address; every field is optional.
type Address struct {
	FirstName    string `json:"firstName,omitempty"`
	LastName     string `json:"lastName,omitempty"`
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	City         string `json:"city,omitempty"`
	State        string `json:"state,omitempty"`
	CountryCode  string `json:"countryCode,omitempty"`
	PostalCode   string `json:"postalCode,omitempty"`
}

// SessionPaymentMethod holds the payment-method options of a session.
type SessionPaymentMethod struct {
	VaultOnSuccess             *bool          `json:"vaultOnSuccess,omitempty"`
	VaultOn3DS                 *bool          `json:"vaultOn3DS,omitempty"`
	VaultOnAgreement           *bool          `json:"vaultOnAgreement,omitempty"`
	Descriptor                 string         `json:"descriptor,omitempty"`
	PaymentType                string         `json:"paymentType,omitempty"`
	OrderedAllowedCardNetworks []string       `json:"orderedAllowedCardNetworks,omitempty"`
	Options                    map[string]any `json:"options,omitempty"`
	AuthorizationType          string         `json:"authorizationType,omitempty"`
	FirstPaymentReason         string         `json:"firstPaymentReason,omitempty"`
}

// HasAnyAmount reports whether any amount value is present (top level, line
// items, fees, shipping): then a currencyCode is required.
func (d *SessionData) HasAnyAmount() bool {
	if d.Amount != nil {
		return true
	}
	if d.Order == nil {
		return false
	}
	for _, li := range d.Order.LineItems {
		if li.Amount != nil || li.DiscountAmount != nil || li.TaxAmount != nil {
			return true
		}
	}
	for _, f := range d.Order.Fees {
		if f.Amount != nil {
			return true
		}
	}
	return d.Order.Shipping != nil && d.Order.Shipping.Amount != nil
}

// TotalAmount is the amount a payment from this session takes: the top-level
// amount, else the vendor's sum over line items of (amount x quantity -
// discountAmount + taxAmount), plus shipping and fees. ok is false when there is
// nothing to compute from. Overflow of int64 is an error, never a wrap.
func (d *SessionData) TotalAmount() (total int64, ok bool, err error) {
	if d.Amount != nil {
		return *d.Amount, true, nil
	}
	if d.Order == nil || (len(d.Order.LineItems) == 0 && len(d.Order.Fees) == 0 && (d.Order.Shipping == nil || d.Order.Shipping.Amount == nil)) {
		return 0, false, nil
	}
	var acc checked
	for _, li := range d.Order.LineItems {
		q := int64(1)
		if li.Quantity != nil {
			q = *li.Quantity
		}
		acc.add(acc.mul(val(li.Amount), q))
		acc.sub(val(li.DiscountAmount))
		acc.add(val(li.TaxAmount))
	}
	for _, f := range d.Order.Fees {
		acc.add(val(f.Amount))
	}
	if d.Order.Shipping != nil {
		acc.add(val(d.Order.Shipping.Amount))
	}
	if acc.overflow {
		return 0, false, fmt.Errorf("the order total does not fit in int64")
	}
	if acc.v < 0 {
		return 0, false, fmt.Errorf("the order total is negative")
	}
	return acc.v, true, nil
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// checked is int64 arithmetic that remembers overflow instead of wrapping.
type checked struct {
	v        int64
	overflow bool
}

func (c *checked) add(x int64) {
	if (x > 0 && c.v > math.MaxInt64-x) || (x < 0 && c.v < math.MinInt64-x) {
		c.overflow = true
		return
	}
	c.v += x
}

func (c *checked) sub(x int64) {
	if x == math.MinInt64 {
		c.overflow = true
		return
	}
	c.add(-x)
}

func (c *checked) mul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		c.overflow = true
		return 0
	}
	return r
}

// AddInt64 adds without wrapping; ok is false on overflow.
func AddInt64(a, b int64) (int64, bool) {
	var c checked
	c.v = a
	c.add(b)
	return c.v, !c.overflow
}

// CheckRules applies the cross-field rules of a session's content (the
// per-field rules are the request schema's): currencyCode whenever an amount
// is given, a computable total. It returns the broken rules, sorted by path.
func (d *SessionData) CheckRules() []FieldError {
	var errs []FieldError
	if d.HasAnyAmount() && d.CurrencyCode == "" {
		errs = append(errs, FieldError{Path: "$.currencyCode", Description: "currencyCode is required when any amount is given"})
	}
	if _, _, err := d.TotalAmount(); err != nil {
		errs = append(errs, FieldError{Path: "$.order", Description: err.Error()})
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Path < errs[j].Path })
	return errs
}

// EmptyMetadataKey reports whether metadata has an empty key at any depth.
func EmptyMetadataKey(m map[string]any) bool {
	for k, v := range m {
		if k == "" {
			return true
		}
		if sub, ok := v.(map[string]any); ok && EmptyMetadataKey(sub) {
			return true
		}
	}
	return false
}

// EmptyMetadataKeyField is the broken rule of an empty metadata key inside a
// 422 (alone, the key is 400 MetadataContainsEmptyKey).
var EmptyMetadataKeyField = FieldError{Path: "$.metadata", Description: "Metadata field contains empty string key."}

// ErrEmptyMetadataKey is MetadataContainsEmptyKey, the answer to an empty
// metadata key alone.
func ErrEmptyMetadataKey() *Error {
	return Errorf(CodeMetadataContainsEmptyKey, "Metadata field contains empty string key.").
		WithRecovery("Either remove empty string keys or provide non-empty string instead.")
}
