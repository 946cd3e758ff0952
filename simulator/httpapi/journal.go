package httpapi

import (
	"bytes"
	"slices"
	"sort"
	"sync"
	"time"
)

// DefaultJournalSize is how many requests the journal keeps per tenant when
// Options.JournalSize is 0.
const DefaultJournalSize = 500

// journalBodyMax is how much of a request or response body an entry keeps.
const journalBodyMax = 4 << 10

// Hint kinds (docs/journal.md).
const (
	HintMissingIdempotencyKey = "missing-idempotency-key"
	HintRetryAfter504NewKey   = "retry-after-504-new-key"
	HintTightPolling          = "tight-polling"
	HintWebhookNon2xx         = "webhook-non-2xx"
	HintUnknownQueryParam     = "unknown-query-param"
	HintMissingAPIVersion     = "missing-api-version"
)

// hintFixes is the one-line fix of each kind, shown by GET /_sandbox/hints.
var hintFixes = map[string]string{
	HintMissingIdempotencyKey: "Send X-Idempotency-Key (one per logical operation) on POST /payments and every payment action, so a retry cannot charge twice.",
	HintRetryAfter504NewKey:   "After a 504, retry with the same X-Idempotency-Key (or read GET /payments/{id}): the first request may have gone through.",
	HintTightPolling:          "Stop polling GET /payments/{id}: react to PAYMENT.STATUS webhooks (or GET /_sandbox/wait in tests).",
	HintWebhookNon2xx:         "Answer webhook deliveries with a 2xx as soon as the event is stored; do slow work after answering.",
	HintMissingAPIVersion:     "Send X-API-VERSION on every merchant-API request (2.4, or the version you are pinned to): production serves a request without it with the earliest version, 2.1.",
	HintUnknownQueryParam:     "Use the filter names GET /payments accepts (snake_case: order_id, customer_id, currency_code, ...); unknown ones are ignored.",
}

// Hint is an integration mistake seen in a request: production would punish
// it, the sandbox only reports it. A hint is never an error.
type Hint struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// JournalEntry is one request of a tenant, as GET /_sandbox/requests shows it.
// The journal keeps a journalRecord per request and makes the entry only
// when it is read.
type JournalEntry struct {
	At           string `json:"at"`
	Method       string `json:"method"`
	Path         string `json:"path"`
	Status       int    `json:"status"`
	LatencyMs    int64  `json:"latencyMs"`
	TenantID     string `json:"tenantId"`
	RequestID    string `json:"requestId"`
	RequestBody  string `json:"requestBody"`
	ResponseBody string `json:"responseBody"`
	Hints        []Hint `json:"hints"`
	// APIVersion is the X-API-VERSION the request was served with (merchant
	// routes with an accepted version only).
	APIVersion string `json:"apiVersion,omitempty"`
}

// journalRecord is what capture keeps of a request: the parts of its entry,
// the path, bodies and hints already redacted (docs/journal.md: when
// the entry is made), the bodies cut to journalBodyMax and owned by the
// record (the response's buffer is reused by the record that replaces it:
// read it under the journal's lock). Formatting (the timestamp, the
// strings, the JSON) waits for a read.
type journalRecord struct {
	at         time.Time
	method     string
	path       string
	status     int
	latencyMs  int64
	tenantID   string
	requestID  string
	reqBody    []byte
	respBody   []byte
	hints      []Hint
	apiVersion string
	paymentIDs []string // the path id, a created payment, approve's merchantPaymentId, an error's paymentId
}

// entry renders the record as GET /_sandbox/requests shows it.
func (r *journalRecord) entry() JournalEntry {
	hints := r.hints
	if hints == nil {
		hints = []Hint{}
	}
	return JournalEntry{
		At: ts(r.at), Method: r.method, Path: r.path, Status: r.status, LatencyMs: r.latencyMs,
		TenantID: r.tenantID, RequestID: r.requestID, RequestBody: string(r.reqBody), ResponseBody: string(r.respBody),
		Hints: hints, APIVersion: r.apiVersion,
	}
}

// JournalQuery filters GET /_sandbox/requests. Zero values match all.
type JournalQuery struct {
	Limit     int
	PaymentID string
	Status    int       // exact HTTP status
	Class     int       // status class 1..5 (from "4xx")
	Since     time.Time // entries at or after
}

// HintSummary is one kind's line of GET /_sandbox/hints.
type HintSummary struct {
	Kind             string   `json:"kind"`
	Count            int      `json:"count"`
	LatestRequestIDs []string `json:"latestRequestIds"`
	LatestEventIDs   []string `json:"latestEventIds,omitempty"`
	LastMessage      string   `json:"lastMessage"`
	Fix              string   `json:"fix"`
}

// hintLatest is how many request (or event) ids a summary keeps per kind.
const hintLatest = 5

// Journal is the per-tenant request journal: a bounded ring of entries in
// memory plus the running hint summary and the little state the hints need
// (recent polls, requests that ended in 504). It is safe for concurrent use;
// every method holds one mutex for a few map and slice operations only.
type Journal struct {
	size int
	mu   sync.Mutex
	by   map[string]*tenantJournal
	made int // tenant journals made since the last Retain
}

// journalPruneEvery is how many new tenant journals are made between two
// checks for journals of tenants that no longer exist (deleted by their ttl).
const journalPruneEvery = 64

type tenantJournal struct {
	ring []journalRecord
	next int // where the next entry goes

	summary map[string]*HintSummary
	polls   map[string][]time.Time // payment id -> times of its latest GETs (at most 5)
	timeout map[uint64]string      // fingerprint of a request that got a 504 -> its idempotency key
}

// NewJournal makes a journal keeping size entries per tenant (0: the default).
func NewJournal(size int) *Journal {
	if size <= 0 {
		size = DefaultJournalSize
	}
	return &Journal{size: size, by: map[string]*tenantJournal{}}
}

// Size is how many entries the journal keeps per tenant.
func (j *Journal) Size() int { return j.size }

func (j *Journal) tenant(id string) *tenantJournal {
	tj := j.by[id]
	if tj == nil {
		tj = &tenantJournal{ring: make([]journalRecord, 0, min(j.size, 64)), summary: map[string]*HintSummary{},
			polls: map[string][]time.Time{}, timeout: map[uint64]string{}}
		j.by[id] = tj
		j.made++
	}
	return tj
}

// NeedsPrune reports whether enough tenant journals were made since the last
// Retain that the gone tenants' journals should be dropped.
func (j *Journal) NeedsPrune() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.made >= journalPruneEvery
}

// Retain drops the journals of every tenant for which keep is false.
func (j *Journal) Retain(keep func(tenantID string) bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for id := range j.by {
		if !keep(id) {
			delete(j.by, id)
		}
	}
	j.made = 0
}

// add appends a record to its tenant's ring (the oldest goes when full) and
// counts its hints.
func (j *Journal) add(e *journalRecord) {
	j.mu.Lock()
	defer j.mu.Unlock()
	tj := j.tenant(e.tenantID)
	for _, h := range e.hints {
		tj.count(h, e.requestID, "")
	}
	if len(tj.ring) < j.size {
		r := *e
		r.respBody = bytes.Clone(e.respBody)
		tj.ring = append(tj.ring, r)
		tj.next = len(tj.ring) % j.size
		return
	}
	slot := &tj.ring[tj.next]
	room := slot.respBody
	*slot = *e
	slot.respBody = reuseBody(room, e.respBody)
	tj.next = (tj.next + 1) % j.size
}

// reuseBody is a copy of b in room, the buffer of the record a full ring
// drops, when it fits without pinning much unused memory; else a new copy.
// A ring slot's response buffer is only ever read under the journal's
// lock (Entries, Snapshot), so it can be written again.
func reuseBody(room, b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if cap(room) >= len(b) && cap(room)-len(b) <= journalSlack {
		return append(room[:0], b...)
	}
	return bytes.Clone(b)
}

func (tj *tenantJournal) count(h Hint, requestID, eventID string) {
	s := tj.summary[h.Kind]
	if s == nil {
		s = &HintSummary{Kind: h.Kind, LatestRequestIDs: []string{}, Fix: hintFixes[h.Kind]}
		tj.summary[h.Kind] = s
	}
	s.Count++
	s.LastMessage = h.Message
	// push puts id first, once: an event retried five times is one id.
	push := func(list []string, id string) []string { // in place: Hints hands out copies
		if id == "" {
			return list
		}
		at := slices.Index(list, id)
		if at < 0 {
			if len(list) < hintLatest {
				list = append(list, "")
			}
			at = len(list) - 1
		}
		copy(list[1:at+1], list[:at])
		list[0] = id
		return list
	}
	s.LatestRequestIDs = push(s.LatestRequestIDs, requestID)
	s.LatestEventIDs = push(s.LatestEventIDs, eventID)
}

// RecordWebhookHint notes that the tenant's receiver answered the delivery of
// event eventID with a non-2xx statusCode (0 when it could not be reached;
// detail says why, e.g. the transport error). The webhook dispatcher calls it
// after each failed attempt; it shows in GET /_sandbox/hints under
// webhook-non-2xx with the event id.
func (j *Journal) RecordWebhookHint(tenantID, eventID string, statusCode int, detail string) {
	j.recordWebhookHint(tenantID, eventID, webhookHintMessage(eventID, statusCode, detail))
}

func (j *Journal) recordWebhookHint(tenantID, eventID, msg string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.tenant(tenantID).count(Hint{Kind: HintWebhookNon2xx, Message: msg}, "", eventID)
}

// webhookHintMessage is the message of a webhook-non-2xx hint.
func webhookHintMessage(eventID string, statusCode int, detail string) string {
	msg := "The webhook receiver answered event " + eventID + " with " + statusText(statusCode)
	if statusCode == 0 {
		msg = "The webhook receiver could not be reached for event " + eventID
	}
	if detail != "" {
		msg += " (" + detail + ")"
	}
	return msg
}

// Clear forgets a tenant's entries, hints and hint state (reset, deletion).
func (j *Journal) Clear(tenantID string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.by, tenantID)
}

// Entries returns the tenant's entries matching q, newest first, rendered
// now (under the journal's lock: a ring slot's buffer is reused).
func (j *Journal) Entries(tenantID string, q JournalQuery) []JournalEntry {
	out := []JournalEntry{}
	j.mu.Lock()
	defer j.mu.Unlock()
	if tj := j.by[tenantID]; tj != nil {
		n := len(tj.ring)
		for i := 0; i < n; i++ {
			e := &tj.ring[(tj.next-1-i+2*n)%n] // newest first
			if !e.matches(q) {
				continue
			}
			out = append(out, e.entry())
			if q.Limit > 0 && len(out) == q.Limit {
				break
			}
		}
	}
	return out
}

func (e *journalRecord) matches(q JournalQuery) bool {
	if q.Status != 0 && e.status != q.Status {
		return false
	}
	if q.Class != 0 && e.status/100 != q.Class {
		return false
	}
	if !q.Since.IsZero() && e.at.Before(q.Since) {
		return false
	}
	if q.PaymentID != "" {
		for _, id := range e.paymentIDs {
			if id == q.PaymentID {
				return true
			}
		}
		return false
	}
	return true
}

// Hints summarises the tenant's hints per kind, most frequent first.
func (j *Journal) Hints(tenantID string) []HintSummary {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []HintSummary{}
	if tj := j.by[tenantID]; tj != nil {
		for _, s := range tj.summary {
			c := *s
			c.LatestRequestIDs = append([]string{}, s.LatestRequestIDs...)
			c.LatestEventIDs = append([]string(nil), s.LatestEventIDs...)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Count != out[b].Count {
			return out[a].Count > out[b].Count
		}
		return out[a].Kind < out[b].Kind
	})
	return out
}

// pollWindow and pollCount define tight polling: pollCount GETs of one
// payment within pollWindow.
const (
	pollWindow = time.Second
	pollCount  = 5
	// hintStateMax bounds the per-tenant maps the hints use; past it they
	// start over (a hint may be missed, memory never grows).
	hintStateMax = 1024
)

// notePoll records a GET of a payment at now and reports whether it makes
// pollCount GETs within pollWindow.
func (j *Journal) notePoll(tenantID, paymentID string, now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	tj := j.tenant(tenantID)
	if len(tj.polls) >= hintStateMax {
		tj.polls = map[string][]time.Time{}
	}
	times := append(tj.polls[paymentID], now)
	if len(times) > pollCount {
		times = times[len(times)-pollCount:]
	}
	tj.polls[paymentID] = times
	return len(times) == pollCount && now.Sub(times[0]) < pollWindow
}

// noteTimeout remembers that the request with this fingerprint got a 504
// under idempotency key key ("" when none).
func (j *Journal) noteTimeout(tenantID string, fingerprint uint64, key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	tj := j.tenant(tenantID)
	if len(tj.timeout) >= hintStateMax {
		tj.timeout = map[uint64]string{}
	}
	tj.timeout[fingerprint] = key
}

// retriedWithNewKey reports whether a request with this fingerprint got a
// 504 before and is now repeated with a different or no key. The first
// repeat settles it: later ones are not reported again.
func (j *Journal) retriedWithNewKey(tenantID string, fingerprint uint64, key string) (bool, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	tj := j.by[tenantID]
	if tj == nil {
		return false, ""
	}
	old, ok := tj.timeout[fingerprint]
	if !ok {
		return false, ""
	}
	delete(tj.timeout, fingerprint)
	return old == "" || key != old, old
}

// RequestIDsByPayment answers, for each of paymentIDs, the ids of the
// tenant's journaled requests that name it, oldest first, at most max each
// (the CI report's example requests: the journal holds only the latest).
func (j *Journal) RequestIDsByPayment(tenantID string, paymentIDs []string, max int) map[string][]string {
	out := map[string][]string{}
	if len(paymentIDs) == 0 {
		return out
	}
	want := make(map[string]bool, len(paymentIDs))
	for _, id := range paymentIDs {
		want[id] = true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	tj := j.by[tenantID]
	if tj == nil {
		return out
	}
	n := len(tj.ring)
	for i := 0; i < n; i++ {
		e := &tj.ring[(tj.next+i)%n] // oldest first
		for _, pid := range e.paymentIDs {
			if want[pid] && len(out[pid]) < max && (len(out[pid]) == 0 || out[pid][len(out[pid])-1] != e.requestID) {
				out[pid] = append(out[pid], e.requestID)
			}
		}
	}
	return out
}
