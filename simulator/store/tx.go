package store

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// Tx is one buntdb transaction with typed methods.
type Tx struct {
	tx    *buntdb.Tx
	write bool
	// hot: the typed record cache (hotcache.go); pending: this transaction's
	// writes of cached records, published after its commit as of seq.
	hot     *hotCache
	pending map[string]*hotEntry
	seq     uint64
	// tenantsWritten: a tenant or API key record changed (see hot.go).
	tenantsWritten bool
	// wrote: the tenants whose records this transaction wrote (changes.go).
	wrote    []string
	wroteBuf [2]string    // wrote's first backing array: most transactions write one tenant
	tenants  *tenantCache // nil: always read the store
	events   *eventIndex  // events by payment (event_index.go); nil: scan
	// after: what AfterCommit was given, run by DB.Update after the commit.
	after []func()
}

var _ simulator.Tx = (*Tx)(nil)

// AfterCommit keeps fn for DB.Update to run once the transaction has
// committed (a read transaction never commits: fn is dropped).
func (t *Tx) AfterCommit(fn func()) {
	if t.write {
		t.after = append(t.after, fn)
	}
}

func (t *Tx) get(key string, v any) (bool, error) {
	s, err := t.tx.Get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, decode(s, v)
}

func (t *Tx) raw(key string) (string, error) {
	s, err := t.tx.Get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return "", nil
	}
	return s, err
}

func (t *Tx) put(key string, v any) error {
	if !t.write {
		return errReadOnly
	}
	b, err := marshal(v)
	if err != nil {
		return err
	}
	t.touch(key)
	raw := string(b)
	if _, _, err = t.tx.Set(key, raw, nil); err == nil {
		t.noteHot(key, raw, nil, false)
	}
	return err
}

func (t *Tx) setRaw(key, val string) error {
	if !t.write {
		return errReadOnly
	}
	t.touch(key)
	_, _, err := t.tx.Set(key, val, nil)
	if err == nil {
		t.noteHot(key, val, nil, false)
	}
	return err
}

func (t *Tx) del(key string) error {
	if !t.write {
		return errReadOnly
	}
	t.touch(key)
	t.noteHot(key, "", nil, true)
	_, err := t.tx.Delete(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return nil
	}
	return err
}

// prefixKeys lists the keys (and values) under prefix, in key order.
func (t *Tx) prefix(prefix string, fn func(k, v string) bool) error {
	return t.tx.AscendGreaterOrEqual("", prefix, func(k, v string) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		return fn(k, v)
	})
}

func getTyped[T any](t *Tx, key string) (*T, error) {
	var v T
	ok, err := t.get(key, &v)
	if !ok || err != nil {
		return nil, err
	}
	return &v, nil
}

// Tenants.

func (t *Tx) Tenant(id string) (*simulator.Tenant, error) {
	return t.cachedTenant(id, func() (*simulator.Tenant, error) { return getTyped[simulator.Tenant](t, kTenant(id)) })
}

func (t *Tx) TenantByAPIKey(key string) (*simulator.Tenant, error) {
	id, err := t.raw(kAPIKey(key))
	if err != nil || id == "" {
		return nil, err
	}
	return t.Tenant(id)
}

func (t *Tx) Tenants() ([]*simulator.Tenant, error) { return t.cachedTenants(t.tenantList) }

func (t *Tx) tenantList() ([]*simulator.Tenant, error) {
	var out []*simulator.Tenant
	var ferr error
	err := t.prefix(pTenant, func(_, v string) bool {
		var tn simulator.Tenant
		if ferr = decode(v, &tn); ferr != nil {
			return false
		}
		out = append(out, &tn)
		return true
	})
	return out, errors.Join(err, ferr)
}

func (t *Tx) PutTenant(tn *simulator.Tenant) error {
	old, err := t.Tenant(tn.ID)
	if err != nil {
		return err
	}
	if old != nil && !old.ExpiresAt.IsZero() && !old.ExpiresAt.Equal(tn.ExpiresAt) {
		if err := t.del(kTExp(old.ExpiresAt, old.ID)); err != nil {
			return err
		}
	}
	if !tn.ExpiresAt.IsZero() {
		if err := t.setRaw(kTExp(tn.ExpiresAt, tn.ID), tn.ID); err != nil {
			return err
		}
	}
	if old != nil {
		for _, k := range old.APIKeys {
			if _, still := tn.Key(k.Key); !still {
				if err := t.del(kAPIKey(k.Key)); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range tn.APIKeys {
		if err := t.setRaw(kAPIKey(k.Key), tn.ID); err != nil {
			return err
		}
	}
	return t.put(kTenant(tn.ID), tn)
}

func (t *Tx) DeleteTenantData(tid string, all bool) error {
	var keys []string
	var globals []string
	err := t.prefix(tenantPrefix(tid), func(k, v string) bool {
		keys = append(keys, k)
		rest := strings.TrimPrefix(k, tenantPrefix(tid))
		switch {
		case strings.HasPrefix(rest, "cs:"):
			var cs simulator.ClientSession
			if decode(v, &cs) == nil {
				globals = append(globals, kCTok(cs.ClientToken))
			}
		case strings.HasPrefix(rest, "pay:"):
			var p payRec
			if decode(v, &p) == nil && p.ThreeDS != nil {
				globals = append(globals, kCh3DS(p.ThreeDS.ChallengeToken))
			}
		case strings.HasPrefix(rest, "job:"):
			var j simulator.Job
			if decode(v, &j) == nil {
				globals = append(globals, kJobQ(j.RealDue, j.TenantID, j.ID))
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if all {
		tn, err := t.Tenant(tid)
		if err != nil {
			return err
		}
		if tn != nil {
			for _, k := range tn.APIKeys {
				globals = append(globals, kAPIKey(k.Key))
			}
			globals = append(globals, kTenant(tid))
			if !tn.ExpiresAt.IsZero() {
				globals = append(globals, kTExp(tn.ExpiresAt, tid))
			}
		}
	}
	for _, k := range append(keys, globals...) {
		if err := t.del(k); err != nil {
			return err
		}
	}
	return nil
}

// Client sessions.

func (t *Tx) Session(tid, id string) (*simulator.ClientSession, error) {
	return txGet(t, kSession(tid, id), tid, decodeSession, (*simulator.ClientSession).Clone)
}

func (t *Tx) SessionByToken(tok string) (*simulator.ClientSession, error) {
	ref, err := t.raw(kCTok(tok))
	if err != nil || ref == "" {
		return nil, err
	}
	tid, id, _ := strings.Cut(ref, "/")
	return t.Session(unesc(tid), id)
}

func (t *Tx) PutSession(cs *simulator.ClientSession) error {
	if err := t.setRaw(kCTok(cs.ClientToken), esc(cs.TenantID)+"/"+cs.ID); err != nil {
		return err
	}
	return t.putTyped(kSession(cs.TenantID, cs.ID), cs, cs.Clone())
}

// Payment instruments.

func (t *Tx) Instrument(tid, tok string) (*simulator.Instrument, error) {
	if tok == "" {
		return nil, nil
	}
	return txGet(t, kInstrument(tid, tok), tid, decodeInstrument, (*simulator.Instrument).Clone)
}

func (t *Tx) InstrumentsByCustomer(tid, cust string) ([]*simulator.Instrument, error) {
	var toks []string
	p := pCustomer(tid, cust)
	if err := t.prefix(p, func(k, _ string) bool { toks = append(toks, strings.TrimPrefix(k, p)); return true }); err != nil {
		return nil, err
	}
	out := make([]*simulator.Instrument, 0, len(toks))
	for _, tok := range toks {
		in, err := t.Instrument(tid, tok)
		if err != nil {
			return nil, err
		}
		if in != nil {
			out = append(out, in)
		}
	}
	return out, nil
}

func (t *Tx) PutInstrument(in *simulator.Instrument) error {
	if in.TokenType == simulator.TokenMultiUse && in.CustomerID != "" {
		if err := t.setRaw(pCustomer(in.TenantID, in.CustomerID)+in.Token, ""); err != nil {
			return err
		}
	}
	b, err := encodeInstrument(in)
	if err != nil {
		return err
	}
	return t.putHot(kInstrument(in.TenantID, in.Token), string(b), in.Clone())
}

// Payments.

func (t *Tx) Payment(tid, id string) (*simulator.Payment, error) {
	if id == "" || strings.ContainsAny(id, ":/") {
		return nil, nil
	}
	return txGet(t, kPayment(tid, id), tid, decodePayment, (*simulator.Payment).Clone)
}

func (t *Tx) PutPayment(p *simulator.Payment) error {
	if !t.write {
		return errReadOnly
	}
	if err := t.setRaw(kPayIdx(p.TenantID, p.Date, p.ID), listIndexValue(p)); err != nil {
		return err
	}
	b, err := encodePayment(p)
	if err != nil {
		return err
	}
	return t.putHot(kPayment(p.TenantID, p.ID), string(b), p.Clone()) // published only if this transaction commits
}

func (t *Tx) PaymentByChallenge(tok string) (*simulator.Payment, error) {
	ref, err := t.raw(kCh3DS(tok))
	if err != nil || ref == "" {
		return nil, err
	}
	tid, id, _ := strings.Cut(ref, "/")
	return t.Payment(unesc(tid), id)
}

func (t *Tx) PutChallenge(tok, tid, pid string) error { return t.setRaw(kCh3DS(tok), esc(tid)+"/"+pid) }
func (t *Tx) DeleteChallenge(tok string) error        { return t.del(kCh3DS(tok)) }

// ListPayments walks the tenant's (date, id) index from the cursor, newest
// first, and keeps the payments that pass the filters. It reads one payment
// more than the page in each direction to know whether there is a next and a
// previous page.
func (t *Tx) ListPayments(tid string, q simulator.PaymentQuery) (simulator.PaymentPage, error) {
	w := &paymentWalk{t: t, tid: tid, prefix: pPayIdx(tid), q: q, pre: newListPrefilter(q)}
	var page simulator.PaymentPage
	var err error
	switch {
	case q.Cursor == nil:
		err = w.firstPage(&page)
	case !q.Cursor.Before:
		err = w.pageAfter(&page)
	default:
		err = w.pageBefore(&page)
	}
	if err != nil {
		return page, err
	}
	return page, w.ferr
}

// paymentWalk is one ListPayments: it walks the tenant's (date, id) index
// under prefix, keeping the payments that pass q's filters; ferr is the
// first error met reading a payment (the walk stops there).
type paymentWalk struct {
	t      *Tx
	tid    string
	prefix string
	q      simulator.PaymentQuery
	pre    *listPrefilter
	ferr   error
}

// collect is the visitor of index keys that appends the matching payments
// to dst and goes on while dst has fewer than max.
func (w *paymentWalk) collect(dst *[]*simulator.Payment, max int) func(k, v string) bool {
	return func(k, v string) bool {
		if !strings.HasPrefix(k, w.prefix) {
			return false
		}
		switch w.pre.dated(k[len(w.prefix):]) {
		case dateStop:
			return false
		case dateSkip:
			return true
		}
		id := k[strings.LastIndexByte(k, ':')+1:]
		if !w.pre.may(v) {
			return true
		}
		p, err := w.t.Payment(w.tid, id)
		if err != nil {
			w.ferr = err
			return false
		}
		if p != nil && matches(p, w.q) {
			*dst = append(*dst, p)
		}
		return len(*dst) < max
	}
}

// older collects into dst, newest first, the payments at index key from
// (the newest when from is ""; from itself only when inclusive) and older.
func (w *paymentWalk) older(from string, inclusive bool, dst *[]*simulator.Payment, max int) error {
	w.pre.descending = true
	if from == "" {
		return w.t.tx.DescendLessOrEqual("", w.prefix+"~", w.collect(dst, max))
	}
	if inclusive {
		return w.t.tx.DescendLessOrEqual("", from, w.collect(dst, max))
	}
	return w.t.tx.DescendLessOrEqual("", from, func(k, v string) bool {
		if k == from {
			return true
		}
		return w.collect(dst, max)(k, v)
	})
}

// newer collects into dst, oldest first, the payments newer than index key
// from.
func (w *paymentWalk) newer(from string, dst *[]*simulator.Payment, max int) error {
	w.pre.descending = false
	return w.t.tx.AscendGreaterOrEqual("", from, func(k, v string) bool {
		if k == from {
			return true
		}
		return w.collect(dst, max)(k, v)
	})
}

// hasNewer reports whether a payment passing the filters is newer than p.
func (w *paymentWalk) hasNewer(p *simulator.Payment) (bool, error) {
	var probe []*simulator.Payment
	if err := w.newer(kPayIdx(w.tid, p.Date, p.ID), &probe, 1); err != nil {
		return false, err
	}
	return len(probe) > 0, nil
}

// firstPage is the newest page, with Next when there are more.
func (w *paymentWalk) firstPage(page *simulator.PaymentPage) error {
	var items []*simulator.Payment
	if err := w.older("", true, &items, w.q.Limit+1); err != nil {
		return err
	}
	if len(items) > w.q.Limit {
		items = items[:w.q.Limit]
		page.Next = cursorOf(items[len(items)-1], false)
	}
	page.Payments = items
	return nil
}

// pageAfter is the page older than the cursor, with Next when there are
// more and Prev when a newer payment passes the filters.
func (w *paymentWalk) pageAfter(page *simulator.PaymentPage) error {
	var items []*simulator.Payment
	from := kPayIdx(w.tid, w.q.Cursor.Date, w.q.Cursor.ID)
	if err := w.older(from, false, &items, w.q.Limit+1); err != nil {
		return err
	}
	if len(items) > w.q.Limit {
		items = items[:w.q.Limit]
		page.Next = cursorOf(items[len(items)-1], false)
	}
	if len(items) > 0 {
		more, err := w.hasNewer(items[0])
		if err != nil {
			return err
		}
		if more {
			page.Prev = cursorOf(items[0], true)
		}
	}
	page.Payments = items
	return nil
}

// pageBefore is the page newer than the cursor (newest first), with Next,
// and Prev when a still newer payment passes the filters.
func (w *paymentWalk) pageBefore(page *simulator.PaymentPage) error {
	var items []*simulator.Payment
	from := kPayIdx(w.tid, w.q.Cursor.Date, w.q.Cursor.ID)
	if err := w.newer(from, &items, w.q.Limit+1); err != nil {
		return err
	}
	if len(items) > w.q.Limit {
		items = items[:w.q.Limit]
	}
	slices.Reverse(items)
	if len(items) > 0 {
		more, err := w.hasNewer(items[0])
		if err != nil {
			return err
		}
		if more {
			page.Prev = cursorOf(items[0], true)
		}
		page.Next = cursorOf(items[len(items)-1], false)
	}
	page.Payments = items
	return nil
}

func cursorOf(p *simulator.Payment, before bool) *simulator.Cursor {
	return &simulator.Cursor{Date: p.Date, ID: p.ID, Before: before}
}

func matches(p *simulator.Payment, q simulator.PaymentQuery) bool {
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	if len(q.Status) > 0 && !slices.Contains(q.Status, p.Status) {
		return false
	}
	procName := ""
	if p.Processor != nil {
		procName = p.Processor.Name
	}
	switch {
	case !in(q.CurrencyCode, p.CurrencyCode), !in(q.CustomerID, p.CustomerID),
		!in(q.Last4, p.PaymentMethod.Data.Last4Digits), !in(q.Processor, procName):
		return false
	case q.OrderID != "" && q.OrderID != p.OrderID:
		return false
	case q.FromDate != nil && p.Date.Before(*q.FromDate), q.ToDate != nil && p.Date.After(*q.ToDate):
		return false
	case q.MinAmount != nil && p.Amount < *q.MinAmount, q.MaxAmount != nil && p.Amount > *q.MaxAmount:
		return false
	}
	return true
}

// Idempotency keys.

func (t *Tx) Idempotency(tid, key string) (string, error) { return t.raw(kIdem(tid, key)) }

func (t *Tx) ClaimIdempotency(tid, key, pid string) error {
	if cur, err := t.raw(kIdem(tid, key)); err != nil {
		return err
	} else if cur != "" {
		return simulator.ErrConflict
	}
	return t.setRaw(kIdem(tid, key), pid)
}

// Migration notes.

func (t *Tx) MigrationNotes(tid string) (*simulator.MigrationNotes, error) {
	m := &simulator.MigrationNotes{TenantID: tid}
	if _, err := t.get(kMigration(tid), m); err != nil {
		return nil, err
	}
	m.TenantID = tid
	return m, nil
}

func (t *Tx) PutMigrationNotes(m *simulator.MigrationNotes) error {
	return t.put(kMigration(m.TenantID), m)
}

// Attempts.

func (t *Tx) Attempt(tid, id string) (*simulator.Attempt, error) {
	return txGet(t, kAttempt(tid, id), tid, decodeAttempt, (*simulator.Attempt).Clone)
}

func (t *Tx) PutAttempt(a *simulator.Attempt) error {
	return t.putTyped(kAttempt(a.TenantID, a.ID), a, a.Clone())
}

func (t *Tx) Attempts(tid string) ([]*simulator.Attempt, error) {
	var out []*simulator.Attempt
	var ferr error
	err := t.prefix(kAttempt(tid, ""), func(_, v string) bool {
		var a simulator.Attempt
		if ferr = decode(v, &a); ferr != nil {
			return false
		}
		out = append(out, &a)
		return true
	})
	return out, errors.Join(err, ferr)
}

// Outbox.

func (t *Tx) AppendEvent(e *simulator.Event) error {
	k := kEvent(e.TenantID, e.CreatedAt, e.ID)
	if err := t.setRaw(kEventID(e.TenantID, e.ID), stamp(e.CreatedAt)); err != nil { // the key's stamp (tx_outbox.go eventKey)
		return err
	}
	if err := t.indexPending(e); err != nil { // webhook delivery queue (tx_outbox.go)
		return err
	}
	st, err := eventInputs(e)
	if err != nil {
		return err
	}
	return t.putEvent(k, st)
}

// Jobs.

func (t *Tx) Job(tid, id string) (*simulator.Job, error) {
	return getTyped[simulator.Job](t, kJob(tid, id))
}

func (t *Tx) PutJob(j *simulator.Job) error {
	if err := t.DeleteJob(j); err != nil {
		return err
	}
	if err := t.setRaw(kJobDue(j.TenantID, j.Due, j.ID), ""); err != nil {
		return err
	}
	if err := t.setRaw(kJobQ(j.RealDue, j.TenantID, j.ID), j.TenantID); err != nil {
		return err
	}
	return t.put(kJob(j.TenantID, j.ID), j)
}

func (t *Tx) DeleteJob(j *simulator.Job) error {
	old, err := t.Job(j.TenantID, j.ID)
	if err != nil || old == nil {
		return err
	}
	return errors.Join(
		t.del(kJobDue(old.TenantID, old.Due, old.ID)),
		t.del(kJobQ(old.RealDue, old.TenantID, old.ID)),
		t.del(kJob(old.TenantID, old.ID)),
	)
}

func (t *Tx) DueJobs(tid string, until time.Time, limit int) ([]*simulator.Job, error) {
	var out []*simulator.Job
	var ferr error
	p := pJobDue(tid)
	end := p + stamp(until) + ";"
	err := t.prefix(p, func(k, _ string) bool {
		if k > end {
			return false
		}
		j, err := t.Job(tid, k[strings.LastIndexByte(k, ':')+1:])
		if err != nil {
			ferr = err
			return false
		}
		if j != nil {
			out = append(out, j)
		}
		return limit <= 0 || len(out) < limit
	})
	return out, errors.Join(err, ferr)
}

func (t *Tx) NextJob() (*simulator.Job, error) {
	var key string
	err := t.prefix(pJobQ, func(k, _ string) bool { key = k; return false })
	if err != nil || key == "" {
		return nil, err
	}
	parts := strings.Split(strings.TrimPrefix(key, pJobQ), ":")
	if len(parts) != 3 {
		return nil, errors.New("store: malformed job queue key " + key)
	}
	return t.Job(unesc(parts[1]), parts[2])
}
