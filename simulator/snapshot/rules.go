package snapshot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// What a snapshot may hold is what the API could have made: the kernel's
// enum values, amounts that are not negative and add up, known currencies,
// references that resolve, ids of the server's shapes, usable keys and
// clocks within range. Merchant strings (order and customer ids, metadata,
// names) follow the request rules only, so that an export of any live
// tenant imports again.

// Snapshot clocks (the tenant's clock and the times of its records) lie
// within [ClockMin, ClockMax]: from 2000 (before any tenant
// clock this product ran) to the last instant a time in nanoseconds since
// 1970 can hold, so that a tenant's clock offset from the importing
// server's clock is exact.
var (
	ClockMin = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	ClockMax = time.Unix(0, math.MaxInt64).UTC()
)

// snapshotProblem is the path and the problem of a refused snapshot.
type snapshotProblem struct{ path, problem string }

func (p *snapshotProblem) Error() string { return p.path + ": " + p.problem }

func problemf(path, format string, args ...any) *snapshotProblem {
	return &snapshotProblem{path: path, problem: fmt.Sprintf(format, args...)}
}

// checkClock: t within the snapshot clock range; zero passes when optional.
func checkClock(path string, t time.Time, optional bool) *snapshotProblem {
	if optional && t.IsZero() {
		return nil
	}
	if t.Before(ClockMin) || t.After(ClockMax) {
		return problemf(path, "%s is outside the range a sandbox clock takes (%s to %s)",
			t.Format(time.RFC3339Nano), ClockMin.Format(time.RFC3339), ClockMax.Format(time.RFC3339))
	}
	return nil
}

// CheckCredential reports why s cannot be an API key or signing secret: a
// credential is 1 to 255 printable ASCII characters (a header value carries
// it), without spaces at either end (HTTP drops them).
func CheckCredential(s string) error {
	if s == "" || len(s) > simulator.MaxText {
		return fmt.Errorf("a credential has 1 to %d characters", simulator.MaxText)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return fmt.Errorf("a credential has printable ASCII characters only (a header carries it); character %d is %q", i, s[i])
		}
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return fmt.Errorf("a credential does not start or end with a space (HTTP drops it)")
	}
	return nil
}

// checkLive applies the rules of live state to the snapshot, after Check's
// shape and limits: the tenant's clock, ids and credentials, then each
// record's ids, enums, amounts and times, then the references between
// records.
func (s *Snapshot) checkLive() *snapshotProblem {
	if p := s.checkTenantLive(); p != nil {
		return p
	}
	ix := s.index()
	d := &s.Data
	for i, cs := range d.Sessions {
		if p := checkLiveSession(fmt.Sprintf("$.data.sessions[%d]", i), cs, ix); p != nil {
			return p
		}
	}
	for i, in := range d.Instruments {
		if p := checkLiveInstrument(fmt.Sprintf("$.data.instruments[%d]", i), in, ix); p != nil {
			return p
		}
	}
	for i, p := range d.Payments {
		if prob := checkLivePayment(fmt.Sprintf("$.data.payments[%d]", i), p, ix); prob != nil {
			return prob
		}
	}
	for i, a := range d.Attempts {
		if p := checkLiveAttempt(fmt.Sprintf("$.data.attempts[%d]", i), a, ix); p != nil {
			return p
		}
	}
	for i, dp := range d.Disputes {
		if p := checkLiveDispute(fmt.Sprintf("$.data.disputes[%d]", i), dp, ix); p != nil {
			return p
		}
	}
	for i, e := range d.Events {
		if p := checkLiveEvent(fmt.Sprintf("$.data.events[%d]", i), e, ix); p != nil {
			return p
		}
	}
	for i, j := range d.Jobs {
		if p := checkLiveJob(fmt.Sprintf("$.data.jobs[%d]", i), j, ix); p != nil {
			return p
		}
	}
	for i, n := range d.MigrationNotes {
		path := fmt.Sprintf("$.data.migrationNotes[%d]", i)
		if n.Count < 0 {
			return problemf(path+".count", "a count is not negative")
		}
		if p := checkClock(path+".firstSeen", n.FirstSeen, true); p != nil {
			return p
		}
		if p := checkClock(path+".lastSeen", n.LastSeen, true); p != nil {
			return p
		}
	}
	return nil
}

// checkTenantLive checks the tenant's id, clock, ttl and credentials.
func (s *Snapshot) checkTenantLive() *snapshotProblem {
	t := &s.Tenant
	if err := simulator.CheckTenantID(t.ID); err != nil {
		return problemf("$.tenant.id", "%v", err)
	}
	if t.Now.IsZero() {
		return problemf("$.tenant.now", "the tenant's clock is required")
	}
	for _, c := range []struct {
		path     string
		t        time.Time
		optional bool
	}{{"$.exportedAt", s.ExportedAt, false}, {"$.tenant.createdAt", t.CreatedAt, true}, {"$.tenant.now", t.Now, false}, {"$.tenant.wallExpiresAt", t.WallExpiresAt, true}} {
		if p := checkClock(c.path, c.t, c.optional); p != nil {
			return p
		}
	}
	if sec := s.Secrets; sec != nil {
		seen := map[string]int{}
		for i, k := range sec.APIKeys {
			path := fmt.Sprintf("$.secrets.apiKeys[%d]", i)
			if err := CheckCredential(k); err != nil {
				return problemf(path, "%v", err)
			}
			if j, dup := seen[k]; dup {
				return problemf(path, "the same key as apiKeys[%d]: each key names one key record", j)
			}
			seen[k] = i
		}
		if err := CheckCredential(sec.SigningSecret); err != nil {
			return problemf("$.secrets.signingSecret", "%v", err)
		}
		if sec.PreviousSecret != "" {
			if err := CheckCredential(sec.PreviousSecret); err != nil {
				return problemf("$.secrets.previousSecret", "%v", err)
			}
		}
		if p := checkClock("$.secrets.previousUntil", sec.PreviousUntil, true); p != nil {
			return p
		}
	}
	return nil
}

// snapshotIndex is what the records of a snapshot can refer to.
type snapshotIndex struct {
	sessions    map[string]*simulator.ClientSession
	instruments map[string]*simulator.Instrument
	payments    map[string]*simulator.Payment
	attempts    map[string]*simulator.Attempt
	disputes    map[string]*simulator.Dispute
}

func (s *Snapshot) index() *snapshotIndex {
	d := &s.Data
	ix := &snapshotIndex{sessions: map[string]*simulator.ClientSession{}, instruments: map[string]*simulator.Instrument{}, payments: map[string]*simulator.Payment{},
		attempts: map[string]*simulator.Attempt{}, disputes: map[string]*simulator.Dispute{}}
	for _, r := range d.Sessions {
		ix.sessions[r.ID] = r
	}
	for _, r := range d.Instruments {
		ix.instruments[r.Token] = r
	}
	for _, r := range d.Payments {
		ix.payments[r.ID] = r
	}
	for _, r := range d.Attempts {
		ix.attempts[r.ID] = r
	}
	for _, r := range d.Disputes {
		ix.disputes[r.ID] = r
	}
	return ix
}

// ref checks that a reference resolves: id ("" passes unless required) is
// a key of m, named what in the problem.
func ref[T any](path, id string, required bool, m map[string]T, what string) *snapshotProblem {
	if id == "" {
		if required {
			return problemf(path, "the %s is required", what)
		}
		return nil
	}
	if _, ok := m[id]; !ok {
		return problemf(path, "no %s %q in the snapshot", what, id)
	}
	return nil
}

func checkID(path string, kind simulator.IDKind, id string) *snapshotProblem {
	if err := simulator.CheckIDSyntax(kind, id); err != nil {
		return problemf(path, "%v", err)
	}
	return nil
}

// firstProblem is the first non-nil problem.
func firstProblem(ps ...*snapshotProblem) *snapshotProblem {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func enumProblem[T ~string](path string, v T, valid []T) *snapshotProblem {
	if !slices.Contains(valid, v) {
		return problemf(path, "unknown value %q (one of %s)", v, joinQuoted(valid))
	}
	return nil
}

// optionalEnum is enumProblem for a field the request may leave out ("").
func optionalEnum(path, v string, valid []string) *snapshotProblem {
	if v == "" {
		return nil
	}
	return enumProblem(path, v, valid)
}

// checkPaymentMethodEnums: the paymentMethod options a merchant sent (of a
// session or a payment, at path) are values the request schema accepts.
func checkPaymentMethodEnums(path, paymentType, authorizationType, firstPaymentReason string) *snapshotProblem {
	return firstProblem(
		optionalEnum(path+".paymentType", paymentType, simulator.PaymentTypes),
		optionalEnum(path+".authorizationType", authorizationType, simulator.AuthorizationTypes),
		optionalEnum(path+".firstPaymentReason", firstPaymentReason, simulator.FirstPaymentReasons),
	)
}

func joinQuoted[T ~string](vs []T) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func checkLiveSession(path string, cs *simulator.ClientSession, ix *snapshotIndex) *snapshotProblem {
	if p := firstProblem(
		checkID(path+".id", simulator.IDUUID, cs.ID),
		enumProblem(path+".approvalMode", cs.ApprovalMode, []simulator.ApprovalMode{simulator.ApprovalAuto, simulator.ApprovalManual}),
		checkClock(path+".createdAt", cs.CreatedAt, true),
		checkClock(path+".expiresAt", cs.ExpiresAt, true),
		ref(path+".currentAttemptId", cs.CurrentAttemptID, false, ix.attempts, "payment attempt"),
	); p != nil {
		return p
	}
	if cs.Data.CurrencyCode != "" && !simulator.ValidCurrency(cs.Data.CurrencyCode) {
		return problemf(path+".data.currencyCode", "unknown currency %q", cs.Data.CurrencyCode)
	}
	if cs.Data.Amount != nil && *cs.Data.Amount < 0 {
		return problemf(path+".data.amount", "an amount is not negative")
	}
	if p := checkOrder(path+".data.order", cs.Data.Order); p != nil {
		return p
	}
	if pm := cs.Data.PaymentMethod; pm != nil {
		pp := path + ".data.paymentMethod"
		if p := checkPaymentMethodEnums(pp, pm.PaymentType, pm.AuthorizationType, pm.FirstPaymentReason); p != nil {
			return p
		}
		for i, n := range pm.OrderedAllowedCardNetworks {
			if p := enumProblem(fmt.Sprintf("%s.orderedAllowedCardNetworks[%d]", pp, i), n, simulator.CardNetworks); p != nil {
				return p
			}
		}
	}
	if errs := cs.Data.CheckRules(); len(errs) > 0 {
		return problemf(path+".data"+strings.TrimPrefix(errs[0].Path, "$"), "%s", errs[0].Description)
	}
	return nil
}

func checkLiveInstrument(path string, in *simulator.Instrument, ix *snapshotIndex) *snapshotProblem {
	return firstProblem(
		checkID(path+".token", simulator.IDPaymentToken, in.Token),
		enumProblem(path+".tokenType", in.TokenType, []simulator.TokenType{simulator.TokenSingleUse, simulator.TokenMultiUse}),
		checkClock(path+".createdAt", in.CreatedAt, true),
		checkClock(path+".deletedAt", in.DeletedAt, true),
		ref(path+".sessionId", in.SessionID, false, ix.sessions, "client session"),
		ref(path+".attemptId", in.AttemptID, false, ix.attempts, "payment attempt"),
		ref(path+".vaultedAs", in.VaultedAs, false, ix.instruments, "payment instrument"),
		ref(path+".sourceToken", in.SourceToken, false, ix.instruments, "payment instrument"),
	)
}

// checkOrder: an order's amounts are not negative, its quantities at least
// 1 and its product types known, as the request schema has them.
func checkOrder(path string, o *simulator.Order) *snapshotProblem {
	if o == nil {
		return nil
	}
	negative := func(v *int64) bool { return v != nil && *v < 0 }
	for i, li := range o.LineItems {
		lp := fmt.Sprintf("%s.lineItems[%d]", path, i)
		if negative(li.Amount) || negative(li.DiscountAmount) || negative(li.TaxAmount) {
			return problemf(lp, "an amount is not negative")
		}
		if li.Quantity != nil && *li.Quantity < 1 {
			return problemf(lp+".quantity", "a quantity is at least 1")
		}
		if p := optionalEnum(lp+".productType", li.ProductType, simulator.ProductTypes); p != nil {
			return p
		}
	}
	for i, f := range o.Fees {
		if negative(f.Amount) {
			return problemf(fmt.Sprintf("%s.fees[%d].amount", path, i), "an amount is not negative")
		}
	}
	if o.Shipping != nil && negative(o.Shipping.Amount) {
		return problemf(path+".shipping.amount", "an amount is not negative")
	}
	return nil
}

// transactionEventTypes are the types of a transaction's events.
var transactionEventTypes = []string{simulator.EventAuthorizationSucceeded, simulator.EventCaptureSucceeded, simulator.EventCancellationSucceeded}

func checkLivePayment(path string, p *simulator.Payment, ix *snapshotIndex) *snapshotProblem {
	if prob := firstProblem(
		checkID(path+".id", simulator.IDPayment, p.ID),
		enumProblem(path+".status", p.Status, simulator.PaymentStatuses),
		checkClock(path+".date", p.Date, false),
		checkClock(path+".dateUpdated", p.DateUpdated, true),
		ref(path+".sessionId", p.SessionID, false, ix.sessions, "client session"),
		ref(path+".attemptId", p.AttemptID, false, ix.attempts, "payment attempt"),
		ref(path+".paymentMethod.paymentMethodToken", p.PaymentMethod.PaymentMethodToken, true, ix.instruments, "payment instrument"),
	); prob != nil {
		return prob
	}
	if !simulator.ValidCurrency(p.CurrencyCode) {
		return problemf(path+".currencyCode", "unknown currency %q", p.CurrencyCode)
	}
	if p.APIVersion != "" && !p.APIVersion.Valid() {
		return problemf(path+".apiVersion", "unknown API version %q", p.APIVersion)
	}
	switch {
	case p.Amount < 0:
		return problemf(path+".amount", "an amount is not negative")
	case p.Authorized < 0 || p.Authorized > p.Amount:
		return problemf(path+".authorized", "the amount authorized is from 0 to the payment's amount (%d)", p.Amount)
	case p.Captured() < 0 || p.Captured() > p.Authorized:
		return problemf(path+".processor.amountCaptured", "the amount captured is from 0 to the amount authorized (%d)", p.Authorized)
	case p.Refunded() < 0 || p.Refunded() > p.Captured():
		return problemf(path+".processor.amountRefunded", "the amount refunded is from 0 to the amount captured (%d)", p.Captured())
	}
	if prob := checkOrder(path+".order", p.Order); prob != nil {
		return prob
	}
	pm := p.PaymentMethod
	if prob := checkPaymentMethodEnums(path+".paymentMethod", pm.PaymentType, pm.AuthorizationType, pm.FirstPaymentReason); prob != nil {
		return prob
	}
	if p.ThreeDS != nil && p.ThreeDS.Result != "" && p.ThreeDS.Result != simulator.ThreeDSAuthSuccess && p.ThreeDS.Result != simulator.ThreeDSAuthFailed {
		return problemf(path+".threeDS.result", "unknown 3DS result %q", p.ThreeDS.Result)
	}
	if p.Timeout != nil {
		if prob := firstProblem(enumProblem(path+".timeout.resolveTo", p.Timeout.ResolveTo, simulator.PaymentStatuses),
			checkClock(path+".timeout.resolveAt", p.Timeout.ResolveAt, false)); prob != nil {
			return prob
		}
	}
	if p.Required != nil && p.Required.Name != simulator.ActionThreeDS {
		return problemf(path+".requiredAction.name", "unknown required action %q", p.Required.Name)
	}
	for i := range p.Transactions {
		if prob := checkLiveTransaction(fmt.Sprintf("%s.transactions[%d]", path, i), &p.Transactions[i], p); prob != nil {
			return prob
		}
	}
	return nil
}

func checkLiveTransaction(path string, t *simulator.Transaction, p *simulator.Payment) *snapshotProblem {
	if prob := firstProblem(
		checkID(path+".id", simulator.IDUUID, t.ID),
		enumProblem(path+".type", t.Type, []string{simulator.TxnSale, simulator.TxnRefund}),
		enumProblem(path+".processorStatus", t.ProcessorStatus, simulator.PaymentStatuses),
		checkClock(path+".date", t.Date, false),
	); prob != nil {
		return prob
	}
	if t.CurrencyCode != p.CurrencyCode {
		return problemf(path+".currencyCode", "a transaction is in its payment's currency (%q)", p.CurrencyCode)
	}
	if t.Amount < 0 || t.Amount > p.Amount {
		return problemf(path+".amount", "a transaction's amount is from 0 to the payment's amount (%d)", p.Amount)
	}
	for id, n := range t.Allocations {
		if n < 0 || n > t.Amount || p.CaptureEvent(id) == nil {
			return problemf(path+".allocations", "a refund is allocated to captures of its payment, from 0 to its amount")
		}
	}
	if t.CaptureEventID != "" && p.CaptureEvent(t.CaptureEventID) == nil {
		return problemf(path+".captureEventId", "no capture %q in this payment", t.CaptureEventID)
	}
	for j, e := range t.Events {
		ep := fmt.Sprintf("%s.events[%d]", path, j)
		if prob := firstProblem(
			checkID(ep+".id", simulator.IDUUID, e.ID),
			enumProblem(ep+".type", e.Type, transactionEventTypes),
			checkClock(ep+".date", e.Date, false),
		); prob != nil {
			return prob
		}
		if e.Amount != nil && (*e.Amount < 0 || *e.Amount > p.Amount) {
			return problemf(ep+".amount", "an event's amount is from 0 to the payment's amount (%d)", p.Amount)
		}
		if e.Refunded < 0 || (e.Amount != nil && e.Refunded > *e.Amount) || (e.Amount == nil && e.Refunded > 0) {
			return problemf(ep+".refunded", "the amount refunded of a capture is from 0 to its amount")
		}
	}
	return nil
}

func checkLiveAttempt(path string, a *simulator.Attempt, ix *snapshotIndex) *snapshotProblem {
	return firstProblem(
		checkID(path+".id", simulator.IDUUID, a.ID),
		enumProblem(path+".status", a.Status, []simulator.AttemptStatus{simulator.AttemptAwaiting, simulator.AttemptApproved, simulator.AttemptAborted, simulator.AttemptExpired}),
		checkClock(path+".createdAt", a.CreatedAt, false),
		checkClock(path+".expiresAt", a.ExpiresAt, false),
		checkClock(path+".updatedAt", a.UpdatedAt, true),
		ref(path+".sessionId", a.SessionID, true, ix.sessions, "client session"),
		ref(path+".token", a.Token, true, ix.instruments, "payment instrument"),
		ref(path+".paymentId", a.PaymentID, false, ix.payments, "payment"),
	)
}

func checkLiveDispute(path string, d *simulator.Dispute, ix *snapshotIndex) *snapshotProblem {
	if prob := firstProblem(
		checkID(path+".id", simulator.IDUUID, d.ID),
		enumProblem(path+".status", d.Status, simulator.DisputeStatuses),
		enumProblem(path+".type", d.Type, simulator.DisputeTypes),
		checkClock(path+".openedAt", d.OpenedAt, false),
		checkClock(path+".updatedAt", d.UpdatedAt, true),
		ref(path+".paymentId", d.PaymentID, true, ix.payments, "payment"),
	); prob != nil {
		return prob
	}
	p := ix.payments[d.PaymentID]
	if d.CurrencyCode != p.CurrencyCode {
		return problemf(path+".currencyCode", "a dispute is in its payment's currency (%q)", p.CurrencyCode)
	}
	if d.Amount < 0 || d.Amount > p.Amount {
		return problemf(path+".amount", "a dispute's amount is from 0 to its payment's amount (%d)", p.Amount)
	}
	for i, st := range d.Then { // a step moves the dispute, as a scenario's dispute.then
		if prob := enumProblem(fmt.Sprintf("%s.then[%d].status", path, i), st.Status, simulator.DisputeMoves); prob != nil {
			return prob
		}
	}
	return nil
}

func checkLiveEvent(path string, e *simulator.Event, ix *snapshotIndex) *snapshotProblem {
	if prob := firstProblem(
		checkID(path+".id", simulator.IDUUID, e.ID),
		checkClock(path+".createdAt", e.CreatedAt, false),
		checkClock(path+".nextAt", e.NextAt, true),
		ref(path+".paymentId", e.PaymentID, true, ix.payments, "payment"),
		ref(path+".disputeId", e.DisputeID, false, ix.disputes, "dispute"),
	); prob != nil {
		return prob
	}
	if strings.HasPrefix(e.Type, "DISPUTE.") && e.DisputeID == "" {
		return problemf(path+".disputeId", "a %s event names its dispute", e.Type)
	}
	for i, a := range e.Attempts {
		ap := fmt.Sprintf("%s.attempts[%d]", path, i)
		if a.StatusCode < 0 || a.StatusCode > 999 || a.LatencyMs < 0 {
			return problemf(ap, "a delivery attempt's statusCode is from 0 to 999 and its latencyMs not negative")
		}
		if len(a.SignedAt) > 20 || !simulator.AllOf(a.SignedAt, func(c byte) bool { return c >= '0' && c <= '9' }) {
			return problemf(ap+".signedAt", "signedAt is empty or the Unix seconds the body was signed at")
		}
		if prob := checkClock(ap+".at", a.At, false); prob != nil {
			return prob
		}
	}
	return nil
}

// jobKinds are the kinds of scheduled work a snapshot may carry
// (JobExpireTenant is never scheduled).
var jobKinds = []simulator.JobKind{simulator.JobAuthorize, simulator.JobExpireAttempt, simulator.JobResolveTimeout, simulator.JobSettle, simulator.JobResolveRefund, simulator.JobDispute, simulator.JobDisputeStatus}

func checkLiveJob(path string, j *simulator.Job, ix *snapshotIndex) *snapshotProblem {
	if prob := firstProblem(
		checkID(path+".id", simulator.IDUUID, j.ID),
		enumProblem(path+".kind", j.Kind, jobKinds),
		checkClock(path+".due", j.Due, false),
		ref(path+".paymentId", j.PaymentID, false, ix.payments, "payment"),
		ref(path+".attemptId", j.AttemptID, false, ix.attempts, "payment attempt"),
		ref(path+".disputeId", j.DisputeID, false, ix.disputes, "dispute"),
	); prob != nil {
		return prob
	}
	return nil
}

// Bounds are the importing server's bounds on what a tenant keeps
// beyond its records: journal entries (--journal-size) and finished
// webhook events (the delivery log's retention: count and age on the
// tenant clock; 0 is no bound).
type Bounds struct {
	JournalEntries int
	EventsKeep     int
	EventsMaxAge   time.Duration
}

// Trim drops what lies beyond b, newest kept: the oldest journal entries
// past b.JournalEntries, and the delivered or exhausted events past
// b.EventsKeep or older than b.EventsMaxAge on the tenant's clock (PENDING
// events are never dropped, as the live retention keeps them). It answers
// one line per part it trimmed, for the import's Sandbox-Warning.
func (s *Snapshot) Trim(b Bounds) []string {
	var notes []string
	if j := s.Journal; j != nil && b.JournalEntries > 0 && len(j.Entries) > b.JournalEntries {
		n := len(j.Entries) - b.JournalEntries
		j.Entries = j.Entries[n:]
		notes = append(notes, fmt.Sprintf("journal: the oldest %d of %d entries dropped (this server keeps %d per tenant: --journal-size)",
			n, n+b.JournalEntries, b.JournalEntries))
	}
	if b.EventsKeep <= 0 && b.EventsMaxAge <= 0 {
		return notes
	}
	var before time.Time
	if b.EventsMaxAge > 0 {
		before = s.Tenant.Now.Add(-b.EventsMaxAge)
	}
	finished := 0
	drop := make([]bool, len(s.Data.Events))
	for i := len(s.Data.Events) - 1; i >= 0; i-- { // newest first: events are in creation order
		e := s.Data.Events[i]
		if e.Status == simulator.DeliveryPending {
			continue
		}
		finished++
		drop[i] = (b.EventsKeep > 0 && finished > b.EventsKeep) || (!before.IsZero() && e.CreatedAt.Before(before))
	}
	kept := s.Data.Events[:0]
	for i, e := range s.Data.Events {
		if !drop[i] {
			kept = append(kept, e)
		}
	}
	if n := len(s.Data.Events) - len(kept); n > 0 {
		var bounds []string
		if b.EventsKeep > 0 {
			bounds = append(bounds, fmt.Sprintf("at most %d (webhook_retention_count)", b.EventsKeep))
		}
		if b.EventsMaxAge > 0 {
			bounds = append(bounds, fmt.Sprintf("none older than %s on the tenant clock (webhook_retention_age)", b.EventsMaxAge))
		}
		notes = append(notes, fmt.Sprintf("webhooks: the oldest %d of %d delivered or exhausted events dropped (this server keeps %s)",
			n, finished, strings.Join(bounds, ", ")))
	}
	clear(s.Data.Events[len(kept):])
	s.Data.Events = kept
	return notes
}

// CheckReport applies the report's own bounds to report counts read
// from a snapshot: lists no longer than the live report keeps them
// (ReportRoutes, ReportRules, ReportEndpoints, ReportHintKinds, and
// ReportExamples ids each), no negative count. Errors: the 422 of a refused
// snapshot at $.report's path.
func CheckReport(r *observe.ReportCounts) error {
	fail := func(path, problem string) error { return Refused("$.report"+path, problem) }
	bounds := []struct {
		path   string
		n, max int
	}{{".requests", len(r.Requests), observe.ReportRoutes}, {".rules", len(r.Rules), observe.ReportRules}, {".webhooks", len(r.Webhooks), observe.ReportEndpoints}, {".hints", len(r.Hints), observe.ReportHintKinds}}
	for _, b := range bounds {
		if b.n > b.max {
			return fail(b.path, fmt.Sprintf("a report keeps at most %d entries here", b.max))
		}
	}
	for i, c := range r.Requests {
		if c.Count < 0 || c.Status < 0 || c.Status > 999 {
			return fail(fmt.Sprintf(".requests[%d]", i), "a count is not negative and a status is from 0 to 999")
		}
	}
	for i, c := range r.Rules {
		if c.Count < 0 || len(c.ExamplePaymentIDs) > observe.ReportExamples {
			return fail(fmt.Sprintf(".rules[%d]", i), fmt.Sprintf("a count is not negative, with at most %d example ids", observe.ReportExamples))
		}
	}
	for i, c := range r.Webhooks {
		if c.Delivered < 0 || c.Retried < 0 || c.Exhausted < 0 || c.NoEndpoint < 0 || len(c.ExhaustedEvents) > observe.ReportExamples {
			return fail(fmt.Sprintf(".webhooks[%d]", i), fmt.Sprintf("counts are not negative, with at most %d example events", observe.ReportExamples))
		}
	}
	for i, c := range r.Hints {
		if c.Count < 0 || len(c.ExampleRequestIDs) > observe.ReportExamples || len(c.ExampleEventIDs) > observe.ReportExamples {
			return fail(fmt.Sprintf(".hints[%d]", i), fmt.Sprintf("a count is not negative, with at most %d example ids", observe.ReportExamples))
		}
	}
	return nil
}

// LeaveOut takes out of d the records unreadable names (records whose
// stored form does not decode) and every record with a reference that does
// not resolve, by the references checkLive resolves: to a record taken out
// (a referrer of a referrer too), or to one the tenant no longer has (its
// file lost it, and the loss was accepted). The rest then imports. It
// answers what it took out, unreadable records first; nothing when every
// record reads and every reference resolves.
func (d *Data) LeaveOut(unreadable []simulator.UnreadableRecord) []Skipped {
	const pay, ses, ins, att, dsp = simulator.RecordPayment, simulator.RecordSession, simulator.RecordInstrument, simulator.RecordAttempt, simulator.RecordDispute
	have := map[string]map[string]bool{pay: {}, ses: {}, ins: {}, att: {}, dsp: {}}
	for _, r := range d.Sessions {
		have[ses][r.ID] = true
	}
	for _, r := range d.Instruments {
		have[ins][r.Token] = true
	}
	for _, r := range d.Payments {
		have[pay][r.ID] = true
	}
	for _, r := range d.Attempts {
		have[att][r.ID] = true
	}
	for _, r := range d.Disputes {
		have[dsp][r.ID] = true
	}
	out := map[string]map[string]bool{}
	var skipped []Skipped
	take := func(kind, id, key, reason string) {
		if out[kind] == nil {
			out[kind] = map[string]bool{}
		}
		out[kind][id] = true
		if have[kind] != nil {
			delete(have[kind], id)
		}
		skipped = append(skipped, Skipped{Kind: kind, ID: id, Key: key, Reason: reason})
	}
	for _, r := range unreadable {
		take(r.Kind, r.ID, r.Key, "its stored record does not decode")
	}
	// dangling is the first reference of a record that does not resolve,
	// said as a reason ("" when all do); refs lists (kind, id) pairs.
	dangling := func(refs ...string) string {
		for i := 0; i+1 < len(refs); i += 2 {
			kind, id := refs[i], refs[i+1]
			switch {
			case id == "" || have[kind][id]:
			case out[kind][id]:
				return "refers to " + kind + " " + id + ", which was left out"
			default:
				return "refers to " + kind + " " + id + ", which the tenant does not have"
			}
		}
		return ""
	}
	for changed := true; changed; {
		changed = false
		keep := func(kind, id string, refs ...string) bool {
			if out[kind][id] {
				return false
			}
			if why := dangling(refs...); why != "" {
				take(kind, id, "", why)
				changed = true
				return false
			}
			return true
		}
		d.Sessions = slices.DeleteFunc(d.Sessions, func(r *simulator.ClientSession) bool {
			return !keep(ses, r.ID, att, r.CurrentAttemptID)
		})
		d.Instruments = slices.DeleteFunc(d.Instruments, func(r *simulator.Instrument) bool {
			return !keep(ins, r.Token, ses, r.SessionID, att, r.AttemptID, ins, r.VaultedAs, ins, r.SourceToken)
		})
		d.Payments = slices.DeleteFunc(d.Payments, func(r *simulator.Payment) bool {
			return !keep(pay, r.ID, ses, r.SessionID, att, r.AttemptID, ins, r.PaymentMethod.PaymentMethodToken)
		})
		d.Attempts = slices.DeleteFunc(d.Attempts, func(r *simulator.Attempt) bool {
			return !keep(att, r.ID, ses, r.SessionID, ins, r.Token, pay, r.PaymentID)
		})
		d.Disputes = slices.DeleteFunc(d.Disputes, func(r *simulator.Dispute) bool {
			return !keep(dsp, r.ID, pay, r.PaymentID)
		})
		d.Events = slices.DeleteFunc(d.Events, func(r *simulator.Event) bool {
			return !keep(simulator.RecordEvent, r.ID, pay, r.PaymentID, dsp, r.DisputeID)
		})
		d.Jobs = slices.DeleteFunc(d.Jobs, func(r *simulator.Job) bool {
			return !keep(simulator.RecordJob, r.ID, pay, r.PaymentID, att, r.AttemptID, dsp, r.DisputeID)
		})
		d.IdempotencyKeys = slices.DeleteFunc(d.IdempotencyKeys, func(r Idempotency) bool {
			return !keep(simulator.RecordIdempotency, r.Key, pay, r.PaymentID)
		})
	}
	return skipped
}
