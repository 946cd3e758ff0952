package simulator

import (
	"context"
	"maps"
)

// maxOneShotTries bounds the decisions of one payment racing others for a
// pending one-shot; past it the payment follows the normal rules rather than
// spin (each retry needs the one-shot replaced or cleared meanwhile).
const maxOneShotTries = 32

// PaymentRequest is POST /payments (and /client/payments) after the schema.
type PaymentRequest struct {
	Token          string
	OrderID        string
	CurrencyCode   string
	Amount         *int64
	CustomerID     string
	Customer       *Customer
	Order          *Order
	Metadata       map[string]any
	PaymentMethod  *SessionPaymentMethod
	IdempotencyKey string
	// ClientSessionID, when set, restricts the token to that session (client side).
	ClientSessionID string
}

// CreatePayment creates a payment from a tokenised or vaulted method and
// authorizes it synchronously: the answer is AUTHORIZED, DECLINED, FAILED or
// PENDING with requiredAction. t is the tenant as read for this request (the
// HTTP layer reads it when it authenticates): a one-shot set after that read
// is left to later payments. Errors: InvalidPaymentInstrumentToken,
// RequestValidationError, MetadataContainsEmptyKey, IdempotencyKeyAlreadyExists,
// RequestTimeout (the payment goes on).
//
// The request is read, checked and decided (the processor included) outside
// the store's write lock, then committed once: the idempotency claim, the
// token marked used, the payment, its PENDING event and, when the processor
// answered at once, the authorization and its event, all or nothing. What was
// read is checked again at commit (the key still unclaimed, the token still
// usable), so two requests racing for one key or one token still give one
// payment. Only a decision that defers (3DS challenge, gateway timeout,
// processor latency) stores the PENDING payment first with a recovery job
// that authorizes it if the process dies before it does.
func (s *Service) CreatePayment(ctx context.Context, t *Tenant, req PaymentRequest) (*Payment, error) {
	if EmptyMetadataKey(req.Metadata) {
		return nil, errEmptyMetadataKey()
	}
	if err := s.checkIdempotencyKey(t, req.IdempotencyKey); err != nil {
		return nil, err
	}
	// The token and its session from memory (shared, read only): buildPayment
	// copies what the new payment keeps of them.
	in, cs, err := paymentSource(hotSource{s.hot()}, t, req)
	if err != nil {
		return nil, err
	}
	p, err := s.buildPayment(t, in, cs, req)
	if err != nil {
		return nil, err
	}
	// The one-shot pending when the request was authenticated (t.Next)
	// picks the rule; the commit takes it from the tenant, so a request
	// refused before then takes nothing. When the commit finds it no longer
	// pending (concurrent payments took the last of it, or it was replaced or
	// cleared), the payment is decided again with what is pending then: each
	// such change causes at most one retry per payment in flight.
	oneShot := oneShotFor(t.Next, p.Metadata)
	var d AuthorizeDecision
	var deferred bool
	for tries := 0; ; tries++ {
		p.OneShot = oneShot
		d = s.Processor.Authorize(ctx, t.ID, p)
		deferred = d.ThreeDS == ThreeDSChallenge || d.Timeout != nil || d.Latency > 0
		err = s.commitPayment(t, req, p, d, deferred)
		moved, ok := err.(*oneShotMoved) // takeOneShot's own error, unwrapped by Update
		if !ok {
			break
		}
		oneShot = "" // past the bound, the normal rules: a commit without a one-shot cannot be moved
		if tries < maxOneShotTries {
			oneShot = oneShotFor(moved.now, p.Metadata)
		}
	}
	if err != nil {
		return nil, err
	}
	s.waits.notify(p.ID)
	if deferred {
		return s.authorizeWith(ctx, t, p, d)
	}
	s.Kick()
	return p, nil
}

// commitPayment stores a payment CreatePayment decided, in one transaction:
// what was read is checked again (the key still unclaimed, the token still
// usable, the one-shot it was decided with still pending), then the
// idempotency claim, the token marked used, the one-shot taken, and the
// payment with its events (and, when deferred, its recovery job).
func (s *Service) commitPayment(t *Tenant, req PaymentRequest, p *Payment, d AuthorizeDecision, deferred bool) error {
	return s.Store.Update(func(tx Tx) error {
		if err := checkIdempotency(tx, t, req.IdempotencyKey); err != nil {
			return err
		}
		in, _, err := paymentSource(tx, t, req)
		if err != nil {
			return err
		}
		if p.OneShot != "" {
			if err := takeOneShot(tx, t.ID, p.OneShot); err != nil {
				return err
			}
		}
		if in.TokenType == TokenSingleUse {
			in.Used = true
			if err := tx.PutInstrument(in); err != nil {
				return err
			}
		}
		if req.IdempotencyKey != "" {
			if err := tx.ClaimIdempotency(t.ID, req.IdempotencyKey, p.ID); err != nil {
				return err
			}
		}
		if deferred {
			return s.insertPayment(tx, t, p)
		}
		return s.createAuthorized(tx, t, p, d)
	})
}

// sourceReader reads what a payment is made from: a Tx (private copies) or
// hotSource (shared values).
type sourceReader interface {
	Instrument(tenantID, token string) (*Instrument, error)
	Session(tenantID, id string) (*ClientSession, error)
}

// hotSource is a sourceReader over RecordMemory: its values are shared.
type hotSource struct{ m RecordMemory }

func (h hotSource) Instrument(tid, tok string) (*Instrument, error) {
	return h.m.HotInstrument(tid, tok)
}
func (h hotSource) Session(tid, id string) (*ClientSession, error) { return h.m.HotSession(tid, id) }

// paymentSource reads and checks the token of a payment request, with its
// session (nil for a vaulted token). It changes neither.
func paymentSource(tx sourceReader, t *Tenant, req PaymentRequest) (*Instrument, *ClientSession, error) {
	in, err := tx.Instrument(t.ID, req.Token)
	if err != nil {
		return nil, nil, err
	}
	if in == nil {
		return nil, nil, errInvalidToken()
	}
	var cs *ClientSession
	if in.SessionID != "" {
		if cs, err = tx.Session(t.ID, in.SessionID); err != nil {
			return nil, nil, err
		}
	}
	if req.ClientSessionID != "" && in.SessionID != req.ClientSessionID {
		return nil, nil, errInvalidToken()
	}
	if err := in.usableForPayment(cs != nil && cs.ApprovalMode == ApprovalManual); err != nil {
		return nil, nil, err
	}
	return in, cs, nil
}

// createAuthorized stores a new payment that the processor decided at once:
// its PENDING event first (rendered from the PENDING payment), then the
// decision applied as authorizing a stored payment applies it (the same
// records and events, in the same order), with no recovery job.
func (s *Service) createAuthorized(tx Tx, t *Tenant, p *Payment, d AuthorizeDecision) error {
	if err := s.appendEvent(tx, s.newEvent(EventPaymentStatus, p, p.Date), p, nil); err != nil {
		return err
	}
	// The id the recovery job would have had is drawn all the same, so that a
	// sequence of requests gets the ids it got when every payment had one
	// (deterministic ids in tests; the golden files hold them).
	_ = s.IDs.NewID(IDUUID)
	now := s.now(t)
	if now.After(p.DateUpdated) {
		p.DateUpdated = now
	}
	before := p.Status
	if err := s.authorizeTx(tx, t, p, d, false, now); err != nil {
		return err
	}
	if p.Status != before {
		if err := s.appendEvent(tx, s.newEvent(EventPaymentStatus, p, now), p, nil); err != nil {
			return err
		}
	}
	return tx.PutPayment(p)
}

// insertPayment stores a new PENDING payment with its first event and the job
// that authorizes it if this process dies before it does.
func (s *Service) insertPayment(tx Tx, t *Tenant, p *Payment) error {
	if err := tx.PutPayment(p); err != nil {
		return err
	}
	if err := s.appendEvent(tx, s.newEvent(EventPaymentStatus, p, p.Date), p, nil); err != nil {
		return err
	}
	j := s.newJob(t, JobAuthorize, p.Date)
	j.ID, j.PaymentID = authJobID(p.ID), p.ID
	return tx.PutJob(j)
}

func authJobID(paymentID string) string { return "authorize-" + paymentID }

// checkIdempotencyKey is checkIdempotency in a read transaction of its own
// (none when there is no key).
func (s *Service) checkIdempotencyKey(t *Tenant, key string) error {
	if key == "" {
		return nil
	}
	return s.Store.View(func(tx Tx) error { return checkIdempotency(tx, t, key) })
}

// checkIdempotency answers 409 when the key was used by an earlier request that had an effect.
func checkIdempotency(tx Tx, t *Tenant, key string) error {
	if key == "" {
		return nil
	}
	pid, err := tx.Idempotency(t.ID, key)
	if err != nil || pid == "" {
		return err
	}
	e := Errorf(CodeIdempotencyKeyAlreadyExists, "The idempotency key %q already exists for transaction", key)
	e.PaymentID = pid
	if p, _ := tx.Payment(t.ID, pid); p != nil {
		e.PaymentStatus = string(p.Status)
	}
	return e
}

// buildPayment merges the request over the session (request fields win;
// customer and metadata merge key by key) into a new PENDING payment. It
// changes neither in nor cs, and the payment shares nothing with them (they
// may be the shared values of RecordMemory; the payment is the caller's).
func (s *Service) buildPayment(t *Tenant, in *Instrument, cs *ClientSession, req PaymentRequest) (*Payment, error) {
	var base SessionData
	if cs != nil && in.TokenType == TokenSingleUse {
		base = cs.Data.clone()
	}
	var missing []FieldError
	if in.TokenType == TokenMultiUse {
		// Vaulted tokens carry no session: the request must say it all.
		for _, f := range []struct {
			ok   bool
			path string
		}{{req.Amount != nil, "$.amount"}, {req.CurrencyCode != "", "$.currencyCode"}, {req.CustomerID != "", "$.customerId"}, {req.OrderID != "", "$.orderId"}} {
			if !f.ok {
				missing = append(missing, FieldError{Path: f.path, Description: "Field required when paying with a vaulted payment method"})
			}
		}
		if len(missing) > 0 {
			return nil, ValidationError("PaymentCreationAPIRequest", missing...)
		}
		if req.CustomerID != in.CustomerID {
			return nil, Errorf(CodeInvalidPaymentInstrumentToken, "The vaulted payment method does not belong to customer %q", req.CustomerID).
				WithRecovery("Pass the customerId the payment method was vaulted for.")
		}
	}
	d := base
	d.Metadata = mergeMaps(base.Metadata, req.Metadata)
	if err := CheckMetadataSize("PaymentCreationAPIRequest", "$.metadata", d.Metadata); err != nil {
		return nil, err
	}
	d.Customer = mergeCustomer(base.Customer, req.Customer)
	if req.Order != nil {
		d.Order = mergeOrder(base.Order, req.Order)
	}
	if req.OrderID != "" {
		d.OrderID = req.OrderID
	}
	if req.CurrencyCode != "" {
		d.CurrencyCode = req.CurrencyCode
	}
	if req.CustomerID != "" {
		d.CustomerID = req.CustomerID
	}
	if req.Amount != nil {
		d.Amount = req.Amount
	}
	pm := mergePaymentMethod(base.PaymentMethod, req.PaymentMethod)
	if errs := d.CheckRules(); len(errs) > 0 {
		return nil, ValidationError("PaymentCreationAPIRequest", errs...)
	}
	if err := s.checkScenarioName(t, "PaymentCreationAPIRequest", d.Metadata); err != nil {
		return nil, err
	}
	amount, hasAmount, _ := d.TotalAmount()
	if !hasAmount {
		missing = append(missing, FieldError{Path: "$.amount", Description: "amount must be provided via the client session or the payment request"})
	}
	if d.CurrencyCode == "" {
		missing = append(missing, FieldError{Path: "$.currencyCode", Description: "currencyCode must be provided via the client session or the payment request"})
	}
	if d.OrderID == "" {
		missing = append(missing, FieldError{Path: "$.orderId", Description: "orderId must be provided via the client session or the payment request"})
	}
	if len(missing) > 0 {
		e := ValidationError("PaymentCreationAPIRequest", missing...)
		e.Message = "Missing fields for payment."
		return nil, e.WithRecovery("When creating a payment `amount`, `currencyCode` and `orderId` must be provided via the Client Session or the Payment request.")
	}
	now := s.now(t)
	p := &Payment{
		ID: s.IDs.NewID(IDPayment), TenantID: t.ID, Date: now, DateUpdated: now, Status: StatusPending,
		OrderID: d.OrderID, CurrencyCode: d.CurrencyCode, Amount: amount, CustomerID: d.CustomerID,
		Customer: d.Customer, Order: d.Order, Metadata: d.Metadata, CardTokenType: "CARD_PAN",
		Card: in.Card, CVVGiven: in.TokenType == TokenSingleUse && in.CVVGiven, SessionID: in.SessionID, Transactions: []Transaction{},
		PaymentMethod: PaymentMethod{
			PaymentMethodToken: in.Token, IsVaulted: in.TokenType == TokenMultiUse,
			AuthorizationType: "FINAL", AnalyticsID: in.AnalyticsID, PaymentMethodType: PaymentMethodTypeCard,
			Data: in.CardData(t.First6Digits),
		},
	}
	if pm != nil {
		p.PaymentMethod.PaymentType = pm.PaymentType
		p.PaymentMethod.Descriptor = pm.Descriptor
		if pm.AuthorizationType != "" {
			p.PaymentMethod.AuthorizationType = pm.AuthorizationType
		}
		p.PaymentMethod.FirstPaymentReason = pm.FirstPaymentReason
		p.PaymentMethod.VaultOnSuccess = pm.VaultOnSuccess != nil && *pm.VaultOnSuccess && in.TokenType == TokenSingleUse
		p.PaymentMethod.VaultOnAgreement = pm.VaultOnAgreement != nil && *pm.VaultOnAgreement
	}
	return p, nil
}

func mergeMaps(a, b map[string]any) map[string]any {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out
}

func pick(a, b string) string {
	if b != "" {
		return b
	}
	return a
}

func mergeAddress(a, b *Address) *Address {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &Address{
		FirstName: pick(a.FirstName, b.FirstName), LastName: pick(a.LastName, b.LastName),
		AddressLine1: pick(a.AddressLine1, b.AddressLine1), AddressLine2: pick(a.AddressLine2, b.AddressLine2),
		City: pick(a.City, b.City), State: pick(a.State, b.State),
		CountryCode: pick(a.CountryCode, b.CountryCode), PostalCode: pick(a.PostalCode, b.PostalCode),
	}
}

func mergeCustomer(a, b *Customer) *Customer {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &Customer{
		EmailAddress: pick(a.EmailAddress, b.EmailAddress), MobileNumber: pick(a.MobileNumber, b.MobileNumber),
		FirstName: pick(a.FirstName, b.FirstName), LastName: pick(a.LastName, b.LastName),
		BillingAddress: mergeAddress(a.BillingAddress, b.BillingAddress), ShippingAddress: mergeAddress(a.ShippingAddress, b.ShippingAddress),
		TaxID: pick(a.TaxID, b.TaxID), NationalDocumentID: pick(a.NationalDocumentID, b.NationalDocumentID),
	}
}

func mergeOrder(a, b *Order) *Order {
	if a == nil {
		return b
	}
	o := *a
	if b.LineItems != nil {
		o.LineItems = b.LineItems
	}
	if b.Fees != nil {
		o.Fees = b.Fees
	}
	if b.Shipping != nil {
		o.Shipping = b.Shipping
	}
	o.CountryCode = pick(a.CountryCode, b.CountryCode)
	o.RetailerCountryCode = pick(a.RetailerCountryCode, b.RetailerCountryCode)
	return &o
}

func mergePaymentMethod(a, b *SessionPaymentMethod) *SessionPaymentMethod {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	o := *a
	o.PaymentType = pick(a.PaymentType, b.PaymentType)
	o.Descriptor = pick(a.Descriptor, b.Descriptor)
	o.AuthorizationType = pick(a.AuthorizationType, b.AuthorizationType)
	o.FirstPaymentReason = pick(a.FirstPaymentReason, b.FirstPaymentReason)
	if b.VaultOnSuccess != nil {
		o.VaultOnSuccess = b.VaultOnSuccess
	}
	if b.VaultOnAgreement != nil {
		o.VaultOnAgreement = b.VaultOnAgreement
	}
	if b.VaultOn3DS != nil {
		o.VaultOn3DS = b.VaultOn3DS
	}
	return &o
}

// Payment reads a payment of tenant t, from memory when the store keeps it
// (RecordMemory): the payment returned is SHARED with other readers and must
// not be changed (Clone it first). Errors: PaymentError (unknown).
func (s *Service) Payment(t *Tenant, id string) (*Payment, error) {
	p, err := s.hot().HotPayment(t.ID, id)
	if err == nil && p == nil {
		err = errPaymentNotFound()
	}
	return p, err
}

// ListPayments pages the tenant's payments, newest first. The query's
// values are the caller's to validate (statuses with PaymentStatus.Valid).
func (s *Service) ListPayments(t *Tenant, q PaymentQuery) (PaymentPage, error) {
	if q.Limit <= 0 || q.Limit > 100 {
		q.Limit = 100
	}
	var page PaymentPage
	err := s.Store.View(func(tx Tx) (err error) { page, err = tx.ListPayments(t.ID, q); return })
	return page, err
}
