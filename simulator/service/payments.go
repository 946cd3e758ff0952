package service

import (
	"context"
	"maps"

	"github.com/paysandbox/paysandbox/simulator"
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
	Customer       *simulator.Customer
	Order          *simulator.Order
	Metadata       map[string]any
	PaymentMethod  *simulator.SessionPaymentMethod
	IdempotencyKey string
	// ClientSessionID, when set, restricts the token to that session (client side).
	ClientSessionID string
	// Version is the API version of the request, recorded on the payment
	// (empty: the client side, which counts as 2.4). Below 2.4 a paymentType
	// the request leaves out is computed (simulator.LegacyPaymentType).
	Version simulator.APIVersion
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
func (s *Service) CreatePayment(ctx context.Context, t *simulator.Tenant, req PaymentRequest) (*simulator.Payment, error) {
	if simulator.EmptyMetadataKey(req.Metadata) {
		return nil, simulator.ErrEmptyMetadataKey()
	}
	c := &creation{s: s, ctx: ctx, t: t, req: req}
	if err := s.store.View(c.read); err != nil {
		return nil, err
	}
	p, err := s.buildPayment(t, c.in, c.cs, c.req)
	if err != nil {
		return nil, err
	}
	p.APIVersion = req.Version
	if p.PaymentMethod.PaymentType == "" && req.Version.Has(simulator.DiffComputedType) {
		p.PaymentMethod.PaymentType = simulator.LegacyPaymentType(p.PaymentMethod.IsVaulted)
	}
	// The one-shot pending when the request was authenticated (t.Next)
	// picks the rule; the commit takes it from the tenant, so a request
	// refused before then takes nothing. When the commit finds it no longer
	// pending (concurrent payments took the last of it, or it was replaced or
	// cleared), the payment is decided again with what is pending then: each
	// such change causes at most one retry per payment in flight.
	oneShot := simulator.OneShotFor(t.Next, p.Metadata)
	var d simulator.AuthorizeDecision
	var deferred bool
	for tries := 0; ; tries++ {
		p.OneShot = oneShot
		d = s.processor.Authorize(ctx, t, p)
		deferred = d.ThreeDS == simulator.ThreeDSChallenge || d.Timeout != nil || d.Latency > 0
		c.p, c.d, c.deferred = p, d, deferred
		err = s.update(ctx, c.commit)
		moved, ok := err.(*oneShotMoved) // takeOneShot's own error, unwrapped by Update
		if !ok {
			break
		}
		oneShot = "" // past the bound, the normal rules: a commit without a one-shot cannot be moved
		if tries < maxOneShotTries {
			oneShot = simulator.OneShotFor(moved.now, p.Metadata)
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

// creation is what CreatePayment's read and commit work on: one value whose
// methods the store calls, where closures would each capture (and move to
// the heap) the request and what was read.
type creation struct {
	s   *Service
	ctx context.Context
	t   *simulator.Tenant
	req PaymentRequest
	// read: the token, the revision of its stored value, and its session.
	in    *simulator.Instrument
	inRev simulator.Revision
	cs    *simulator.ClientSession
	// commit: the payment, its decision and whether it defers.
	p        *simulator.Payment
	d        simulator.AuthorizeDecision
	deferred bool
}

// read checks the request's idempotency key (checkIdempotency), then reads
// and checks its token (paymentSource), in one read transaction.
func (c *creation) read(tx simulator.Tx) (err error) {
	if err := checkIdempotency(tx, c.t, c.req.IdempotencyKey); err != nil {
		return err
	}
	c.in, c.inRev, c.cs, err = paymentSource(tx, c.t, c.req)
	return err
}

// commit stores the payment CreatePayment decided, in one transaction:
// what was read is checked again (the key still unclaimed, the token still
// usable by recheck, the one-shot it was decided with still pending), then the
// idempotency claim, the token marked used, the one-shot taken, and the
// payment with its events (and, when deferred, its recovery job).
func (c *creation) commit(tx simulator.Tx) error {
	s, t, req, p := c.s, c.t, &c.req, c.p
	if err := checkIdempotency(tx, t, req.IdempotencyKey); err != nil {
		return err
	}
	in, err := c.recheck(tx)
	if err != nil {
		return err
	}
	if p.OneShot != "" {
		if err := takeOneShot(tx, t.ID, p.OneShot); err != nil {
			return err
		}
	}
	if in.TokenType == simulator.TokenSingleUse {
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
	if c.deferred {
		return s.insertPayment(tx, t, p)
	}
	return s.createAuthorized(c.ctx, tx, t, p, c.d)
}

// recheck checks in the write transaction that the request's token is
// still usable, as paymentSource does: while its stored value is still the
// one read (its revision), it is the token read and checked then, and the
// answer is that read, not decoded again. Otherwise it is read again;
// its session is not read again while the token still names the session
// read before: the one thing paymentSource checks of a session, its
// approval mode, is fixed when the session is made, so that read still
// answers it (a change of the session's data after the read does not move
// the payment built from it).
func (c *creation) recheck(tx simulator.Tx) (*simulator.Instrument, error) {
	same, err := tx.InstrumentAt(c.t.ID, c.req.Token, c.inRev)
	if err != nil {
		return nil, err
	}
	if same { // the commit may mark it used: a retried commit marks it again
		return c.in, nil
	}
	in, err := tx.Instrument(c.t.ID, c.req.Token)
	if err != nil {
		return nil, err
	}
	if in == nil {
		return nil, simulator.ErrInvalidToken()
	}
	if in.SessionID != c.in.SessionID { // not the token read before: check it as the first time
		in, _, _, err = paymentSource(tx, c.t, c.req)
		return in, err
	}
	if err := in.UsableForPayment(c.cs != nil && c.cs.ApprovalMode == simulator.ApprovalManual); err != nil {
		return nil, err
	}
	return in, nil
}

// paymentSource reads and checks the token of a payment request, with the
// revision of its stored value and its session (nil for a vaulted token).
// It changes neither.
func paymentSource(tx simulator.Tx, t *simulator.Tenant, req PaymentRequest) (*simulator.Instrument, simulator.Revision, *simulator.ClientSession, error) {
	in, rev, err := tx.InstrumentRevision(t.ID, req.Token)
	if err != nil {
		return nil, "", nil, err
	}
	if in == nil {
		return nil, "", nil, simulator.ErrInvalidToken()
	}
	var cs *simulator.ClientSession
	if in.SessionID != "" {
		if cs, err = tx.Session(t.ID, in.SessionID); err != nil {
			return nil, "", nil, err
		}
	}
	if req.ClientSessionID != "" && in.SessionID != req.ClientSessionID {
		return nil, "", nil, simulator.ErrInvalidToken()
	}
	if err := in.UsableForPayment(cs != nil && cs.ApprovalMode == simulator.ApprovalManual); err != nil {
		return nil, "", nil, err
	}
	return in, rev, cs, nil
}

// createAuthorized stores a new payment that the processor decided at once:
// its PENDING event first (rendered from the PENDING payment), then the
// decision applied as authorizing a stored payment applies it (the same
// records and events, in the same order), with no recovery job.
func (s *Service) createAuthorized(ctx context.Context, tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment, d simulator.AuthorizeDecision) error {
	inTx, err := tx.Tenant(t.ID) // the events' tenant as in tx, read once for both
	if err != nil {
		return err
	}
	evs := new([2]simulator.Event) // both events in one allocation
	s.initEvent(&evs[0], simulator.EventPaymentStatus, p, p.Date)
	if err := s.appendEventOf(tx, inTx, &evs[0], p, nil); err != nil {
		return err
	}
	// The id the recovery job would have had is drawn all the same, so that a
	// sequence of requests gets the ids it got when every payment had one
	// (deterministic ids in tests; the golden files hold them).
	_ = s.ids.NewID(simulator.IDUUID)
	now := s.now(t)
	if now.After(p.DateUpdated) {
		p.DateUpdated = now
	}
	before := p.Status
	if err := s.authorizeTx(ctx, tx, t, p, d, false, now); err != nil {
		return err
	}
	if p.Status != before {
		s.initEvent(&evs[1], simulator.EventPaymentStatus, p, now)
		return s.putPaymentWithEvent(tx, inTx, &evs[1], p)
	}
	return tx.PutPayment(p)
}

// insertPayment stores a new PENDING payment with its first event and the job
// that authorizes it if this process dies before it does.
func (s *Service) insertPayment(tx simulator.Tx, t *simulator.Tenant, p *simulator.Payment) error {
	if err := tx.PutPayment(p); err != nil {
		return err
	}
	if err := s.appendEvent(tx, s.newEvent(simulator.EventPaymentStatus, p, p.Date), p, nil); err != nil {
		return err
	}
	j := s.newJob(t, simulator.JobAuthorize, p.Date)
	j.ID, j.PaymentID = authJobID(p.ID), p.ID
	return tx.PutJob(j)
}

func authJobID(paymentID string) string { return "authorize-" + paymentID }

// buildPayment merges the request over the session (request fields win;
// customer and metadata merge key by key) into a new PENDING payment. It
// changes neither in nor cs; the payment may share values with cs (the
// caller's own read, not stored again).
func (s *Service) buildPayment(t *simulator.Tenant, in *simulator.Instrument, cs *simulator.ClientSession, req PaymentRequest) (*simulator.Payment, error) {
	var base simulator.SessionData
	if cs != nil && in.TokenType == simulator.TokenSingleUse {
		base = cs.Data
	}
	if in.TokenType == simulator.TokenMultiUse {
		if err := checkVaultedRequest(in, req); err != nil {
			return nil, err
		}
	}
	d := mergeRequest(base, req)
	if err := simulator.CheckMetadataSize("PaymentCreationAPIRequest", "$.metadata", d.Metadata); err != nil {
		return nil, err
	}
	pm := mergePaymentMethod(base.PaymentMethod, req.PaymentMethod)
	if errs := d.CheckRules(); len(errs) > 0 {
		return nil, simulator.ValidationError("PaymentCreationAPIRequest", errs...)
	}
	if err := s.checkScenarioName(t, "PaymentCreationAPIRequest", d.Metadata); err != nil {
		return nil, err
	}
	amount, hasAmount, _ := d.TotalAmount()
	if err := checkRequired(d, hasAmount); err != nil {
		return nil, err
	}
	now := s.now(t)
	p := &simulator.Payment{
		ID: s.ids.NewID(simulator.IDPayment), TenantID: t.ID, Date: now, DateUpdated: now, Status: simulator.StatusPending,
		OrderID: d.OrderID, CurrencyCode: d.CurrencyCode, Amount: amount, CustomerID: d.CustomerID,
		Customer: d.Customer, Order: d.Order, Metadata: d.Metadata, CardTokenType: "CARD_PAN",
		Card: in.Card, CVVGiven: in.TokenType == simulator.TokenSingleUse && in.CVVGiven, SessionID: in.SessionID, Transactions: []simulator.Transaction{},
		PaymentMethod: simulator.PaymentMethod{
			PaymentMethodToken: in.Token, IsVaulted: in.TokenType == simulator.TokenMultiUse,
			AuthorizationType: simulator.AuthorizationFinal, AnalyticsID: in.AnalyticsID, PaymentMethodType: simulator.PaymentMethodTypeCard,
			Data: in.CardData(t.First6Digits),
		},
	}
	if pm != nil {
		applyPaymentMethod(&p.PaymentMethod, pm, in.TokenType)
	}
	return p, nil
}

// checkRequired is the ValidationError naming what a payment needs that
// neither the session nor the request gave (amount, currencyCode, orderId),
// or nil.
func checkRequired(d simulator.SessionData, hasAmount bool) error {
	var missing []simulator.FieldError
	if !hasAmount {
		missing = append(missing, simulator.FieldError{Path: "$.amount", Description: "amount must be provided via the client session or the payment request"})
	}
	if d.CurrencyCode == "" {
		missing = append(missing, simulator.FieldError{Path: "$.currencyCode", Description: "currencyCode must be provided via the client session or the payment request"})
	}
	if d.OrderID == "" {
		missing = append(missing, simulator.FieldError{Path: "$.orderId", Description: "orderId must be provided via the client session or the payment request"})
	}
	if len(missing) == 0 {
		return nil
	}
	e := simulator.ValidationError("PaymentCreationAPIRequest", missing...)
	e.Message = "Missing fields for payment."
	return e.WithRecovery("When creating a payment `amount`, `currencyCode` and `orderId` must be provided via the Client Session or the Payment request.")
}

// applyPaymentMethod sets the payment method options pm gives on m (the
// authorization type only when given; vaultOnSuccess only for a single-use
// token of kind tokenType).
func applyPaymentMethod(m *simulator.PaymentMethod, pm *simulator.SessionPaymentMethod, tokenType simulator.TokenType) {
	m.PaymentType = pm.PaymentType
	m.Descriptor = pm.Descriptor
	if pm.AuthorizationType != "" {
		m.AuthorizationType = pm.AuthorizationType
	}
	m.FirstPaymentReason = pm.FirstPaymentReason
	m.VaultOnSuccess = pm.VaultOnSuccess != nil && *pm.VaultOnSuccess && tokenType == simulator.TokenSingleUse
	m.VaultOnAgreement = pm.VaultOnAgreement != nil && *pm.VaultOnAgreement
}

// checkVaultedRequest checks a request that pays with a vaulted (MULTI_USE)
// token: such a token carries no session, so the request names the amount,
// currency, customer and order itself, and the customer owns the token.
func checkVaultedRequest(in *simulator.Instrument, req PaymentRequest) error {
	var missing []simulator.FieldError
	for _, f := range []struct {
		ok   bool
		path string
	}{{req.Amount != nil, "$.amount"}, {req.CurrencyCode != "", "$.currencyCode"}, {req.CustomerID != "", "$.customerId"}, {req.OrderID != "", "$.orderId"}} {
		if !f.ok {
			missing = append(missing, simulator.FieldError{Path: f.path, Description: "Field required when paying with a vaulted payment method"})
		}
	}
	if len(missing) > 0 {
		return simulator.ValidationError("PaymentCreationAPIRequest", missing...)
	}
	if req.CustomerID != in.CustomerID {
		return simulator.Errorf(simulator.CodeInvalidPaymentInstrumentToken, "The vaulted payment method does not belong to customer %q", req.CustomerID).
			WithRecovery("Pass the customerId the payment method was vaulted for.")
	}
	return nil
}

// mergeRequest lays the request's fields over the session's data: a field
// the request sets wins; metadata, customer and order merge key by key.
func mergeRequest(base simulator.SessionData, req PaymentRequest) simulator.SessionData {
	d := base
	d.Metadata = mergeMaps(base.Metadata, req.Metadata)
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
	return d
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

func mergeAddress(a, b *simulator.Address) *simulator.Address {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &simulator.Address{
		FirstName: pick(a.FirstName, b.FirstName), LastName: pick(a.LastName, b.LastName),
		AddressLine1: pick(a.AddressLine1, b.AddressLine1), AddressLine2: pick(a.AddressLine2, b.AddressLine2),
		City: pick(a.City, b.City), State: pick(a.State, b.State),
		CountryCode: pick(a.CountryCode, b.CountryCode), PostalCode: pick(a.PostalCode, b.PostalCode),
	}
}

func mergeCustomer(a, b *simulator.Customer) *simulator.Customer {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &simulator.Customer{
		EmailAddress: pick(a.EmailAddress, b.EmailAddress), MobileNumber: pick(a.MobileNumber, b.MobileNumber),
		FirstName: pick(a.FirstName, b.FirstName), LastName: pick(a.LastName, b.LastName),
		BillingAddress: mergeAddress(a.BillingAddress, b.BillingAddress), ShippingAddress: mergeAddress(a.ShippingAddress, b.ShippingAddress),
		TaxID: pick(a.TaxID, b.TaxID), NationalDocumentID: pick(a.NationalDocumentID, b.NationalDocumentID),
	}
}

func mergeOrder(a, b *simulator.Order) *simulator.Order {
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

func mergePaymentMethod(a, b *simulator.SessionPaymentMethod) *simulator.SessionPaymentMethod {
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

// Payment reads a payment of tenant t (the caller's own).
// Errors: PaymentError (unknown).
func (s *Service) Payment(t *simulator.Tenant, id string) (p *simulator.Payment, err error) {
	err = s.store.View(func(tx simulator.Tx) (err error) { p, err = tx.Payment(t.ID, id); return })
	if err == nil && p == nil {
		err = simulator.ErrPaymentNotFound()
	}
	return p, err
}

// ListPayments pages the tenant's payments, newest first. The query's
// values are the caller's to validate (statuses with PaymentStatus.Valid).
// A payment whose record does not decode is left out and named in
// page.Unreadable.
func (s *Service) ListPayments(t *simulator.Tenant, q simulator.PaymentQuery) (simulator.PaymentPage, error) {
	if q.Limit <= 0 || q.Limit > 100 {
		q.Limit = 100
	}
	var page simulator.PaymentPage
	err := s.store.View(func(tx simulator.Tx) (err error) {
		if page, err = tx.ListPayments(t.ID, q); err != nil {
			return err
		}
		page.Unreadable = unreadableKeys(tx)
		return nil
	})
	return page, err
}
