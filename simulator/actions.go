package simulator

// CheckSettle: only a SETTLING payment can be settled at once (control plane);
// the processor's own settlement job obeys the same rule.
func (p *Payment) CheckSettle() error {
	if p.Status != StatusSettling {
		return Errorf(CodeInvalidPaymentStatus, "Only a settling payment can be settled; this one is %s", p.Status).WithPayment(p)
	}
	return nil
}

// CheckDispute: an AUTHORIZED, SETTLING, PARTIALLY_SETTLED or SETTLED payment
// can be disputed; the amount is the use case's to check.
func (p *Payment) CheckDispute() error {
	switch p.Status {
	case StatusAuthorized, StatusSettling, StatusPartiallySettled, StatusSettled:
		return nil
	}
	return Errorf(CodeInvalidPaymentStatus, "A %s payment cannot be disputed", lower(p.Status)).WithPayment(p)
}

// CheckChallenge: only a PENDING payment with a 3DS challenge in progress
// (answered or not) can have its challenge answered by the control plane.
func (p *Payment) CheckChallenge() error {
	if p.Status != StatusPending || p.ThreeDS == nil {
		return Errorf(CodeInvalidPaymentStatus, "The payment has no 3DS challenge in progress").WithPayment(p)
	}
	return nil
}

// CheckChallengeAnswer: the shopper's answer to a 3DS challenge (the
// challenge page, where token is the credential) is taken only by a
// PENDING payment whose challenge was issued with token, answered already
// or not. Any other payment refuses it as an invalid client token, naming
// nothing: the token is all the caller holds.
func (p *Payment) CheckChallengeAnswer(token string) error {
	if token == "" || p.Status != StatusPending || p.ThreeDS == nil || p.ThreeDS.ChallengeToken != token {
		return ErrClientToken()
	}
	return nil
}

// Actions is what a payment allows now, each answer being its Check method's:
// an action is allowed iff its Check returns nil. Adapters (dashboard, CLI)
// offer exactly these and never re-derive them.
type Actions struct {
	Capture bool // CheckCapture with no amount (capture the rest)
	Cancel  bool // CheckCancel
	Refund  bool // CheckRefund with no amount and no capture event (refund the rest)
	Settle  bool // CheckSettle
	Dispute bool // CheckDispute
	ThreeDS bool // CheckChallenge: answer the 3DS challenge in progress

	Capturable int64 // what a capture with no amount takes; 0 unless Capture
	Refundable int64 // what a refund with no amount takes; 0 unless Refund
}

// Any reports whether at least one action is allowed.
func (a Actions) Any() bool {
	return a.Capture || a.Cancel || a.Refund || a.Settle || a.Dispute || a.ThreeDS
}

// Actions asks every Check method what the payment allows. It never changes p.
func (p *Payment) Actions() Actions {
	var a Actions
	if n, err := p.CheckCapture(nil); err == nil {
		a.Capture, a.Capturable = true, n
	}
	if n, err := p.CheckRefund(nil, ""); err == nil {
		a.Refund, a.Refundable = true, n
	}
	a.Cancel = p.CheckCancel() == nil
	a.Settle = p.CheckSettle() == nil
	a.Dispute = p.CheckDispute() == nil
	a.ThreeDS = p.CheckChallenge() == nil
	return a
}
