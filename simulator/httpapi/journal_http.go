package httpapi

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

const ctxHints = "paysandbox.hints"

// ctxAnswerPayment is the payment id of a payment, approve or attempt
// answer, set by writeJSON ("" when the answer names none);
// ctxErrorPayment the paymentId of an error answer written by writeJSON
// (unset, or nil after a 504 written by the timeout).
const (
	ctxAnswerPayment = "paysandbox.answerPayment"
	ctxErrorPayment  = "paysandbox.errorPayment"
)

// addHint attaches a hint to the current request's journal entry (handlers
// call it; the journal hook collects it).
func addHint(c echo.Context, kind, message string) {
	hs, _ := c.Get(ctxHints).([]Hint)
	c.Set(ctxHints, append(hs, Hint{Kind: kind, Message: message}))
}

// Journal is the server's request journal.
func (s *Server) Journal() *Journal { return s.journal }

// RecordWebhookHint notes that the tenant's receiver answered the delivery
// of event eventID with a non-2xx statusCode (0 when it could not be
// reached; detail says why) at at, on the tenant clock: in the journal's
// hints (Journal.RecordWebhookHint) and in the tenant's CI report. The
// webhook dispatcher calls it after each failed attempt.
func (s *Server) RecordWebhookHint(tenantID, eventID string, statusCode int, detail string, at time.Time) {
	msg := webhookHintMessage(eventID, statusCode, detail)
	s.journal.recordWebhookHint(tenantID, eventID, msg)
	if s.svc != nil {
		s.svc.Publish(observe.Happening{Kind: observe.DeliveryHint, TenantID: tenantID, EventID: eventID, At: at,
			Hints: []observe.Hint{{Kind: HintWebhookNon2xx, Message: redact.String(msg)}}})
	}
}

// captureWriter keeps the first bytes of a response for the journal, in a
// buffer from a pool (room) that release gives back once the journal has
// copied what it keeps.
type captureWriter struct {
	http.ResponseWriter
	buf   []byte
	limit int
	over  bool
	route journalRoute
	room  *captureRoom
}

// captureRoom is a pooled capture buffer.
type captureRoom struct{ b []byte }

var captures = sync.Pool{New: func() any { return &captureRoom{b: make([]byte, 0, 2<<10)} }}

// maxPooledCapture keeps a long capture (a redacted route's answer is
// captured up to redactedCaptureMax) out of the pool.
const maxPooledCapture = journalBodyMax + journalLookahead

// release gives the capture buffer back; nothing may use w.buf afterwards.
func (w *captureWriter) release() {
	if w.room != nil && cap(w.buf) <= maxPooledCapture {
		w.room.b = w.buf[:0]
		captures.Put(w.room)
	}
	w.room, w.buf = nil, nil
}

func (w *captureWriter) Write(b []byte) (int, error) {
	if room := w.limit - len(w.buf); room > 0 {
		w.buf = append(w.buf, b[:min(room, len(b))]...)
	}
	if len(w.buf)+len(b) > w.limit {
		w.over = true
	}
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming responses streaming.
func (w *captureWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// redaction says which JSON fields of a route's bodies are secrets.
type redaction struct{ req, resp []string }

// redactions is the per-route table: only these routes' bodies are parsed and
// rewritten; every other body is kept as sent.
var redactions = map[string]redaction{
	"POST /client/payment-instruments":      {req: []string{"number", "cvv", "cardNumber"}},
	"POST /client-session":                  {resp: []string{"clientToken"}},
	"GET /client-session":                   {resp: []string{"clientToken"}},
	"PATCH /client-session":                 {req: []string{"clientToken"}, resp: []string{"clientToken"}},
	"POST /payments":                        {resp: []string{"clientToken"}},
	"GET /payments/:id":                     {resp: []string{"clientToken"}},
	"POST /payments/:id/authorize":          {resp: []string{"clientToken"}},
	"POST /payments/:id/resume":             {req: []string{"resumeToken"}, resp: []string{"clientToken"}},
	"POST /client/payments":                 {resp: []string{"clientToken"}},
	"POST /client/payments/:id/resume":      {req: []string{"resumeToken"}, resp: []string{"clientToken"}},
	"POST /_sandbox/payments/:id/3ds":       {resp: []string{"clientToken"}},
	"GET /_sandbox/payments/:id":            {resp: []string{"clientToken"}},
	"GET /_sandbox/wait":                    {resp: []string{"clientToken"}},
	"POST /_sandbox/tenants":                {resp: []string{"apiKey", "signingSecret"}},
	"POST /_sandbox/webhooks/rotate-secret": {resp: []string{"signingSecret", "previousSigningSecret"}},
	"GET /_sandbox/tenants":                 {resp: []string{"apiKey", "apiKeys", "signingSecret"}},
	"GET /_sandbox/snapshot":                {resp: []string{"secrets", "clientToken", "challengeToken", "resumeToken"}},
}

// redactedCaptureMax is how much of a redacted route's response is captured
// (it must be parsed whole to be redacted).
const redactedCaptureMax = 64 << 10

const redactedMark = "[REDACTED]"

// redactFields rewrites the named fields (at any depth, names compared without
// case, as encoding/json matches them) of a JSON body. A body that is not
// JSON, or was cut, is replaced whole: a secret never leaks through a parse
// failure. Responses (ours, so exact key names) are parsed only when a
// field's name occurs in them; requests always are. b itself is returned
// when there is nothing to rewrite.
func redactFields(b []byte, fields []string, cut, response bool) []byte {
	if len(fields) == 0 || len(b) == 0 {
		return b
	}
	if response && !cut {
		present := false // most answers of these routes carry no secret
		for _, f := range fields {
			if bytes.Contains(b, []byte(`"`+f+`"`)) {
				present = true
				break
			}
		}
		if !present {
			return b
		}
	}
	var v any
	if cut || json.Unmarshal(b, &v) != nil {
		return []byte(redactedMark + " (body not parsed)")
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				for _, f := range fields {
					if strings.EqualFold(k, f) && val != nil {
						t[k] = redactedMark
					}
				}
				walk(val)
			}
		case []any:
			for _, val := range t {
				walk(val)
			}
		}
	}
	walk(v)
	out, err := jsonBytes(v)
	if err != nil {
		return []byte(redactedMark)
	}
	return out
}

// journalLookahead is how far past journalBodyMax a body is read for
// masking, so that a card number crossing the cut is seen whole and masked
// before the cut (a run still touching the end of what was read is masked
// whole: see redact.Bytes).
const journalLookahead = 64

// journalHead is the journal's copy of a body: masked by value
// (internal/redact: card numbers, security codes, URL tokens), then cut to
// journalBodyMax. Masking comes first so that the cut cannot leave the
// digits of a number it split in clear. cut says b is already the head of a
// longer body. owned says b belongs to the caller's request alone (the
// capture buffer, a body rewritten by redactFields) and is never written
// again, so the record may keep it without a copy; otherwise, and when
// keeping it would pin much unused memory, the head is copied.
func journalHead(b []byte, cut, owned bool) []byte {
	m, rewritten := journalMask(b, cut)
	if len(m) == 0 {
		return nil
	}
	owned = owned || rewritten
	if owned && cap(m)-len(m) <= journalSlack {
		return m[:len(m):len(m)]
	}
	return bytes.Clone(m)
}

// journalSlack is how much unused capacity a kept body may carry.
const journalSlack = 1 << 10

// journalMask masks b and cuts it to journalBodyMax; rewritten says the
// result is a new buffer, not b's.
func journalMask(b []byte, cut bool) (m []byte, rewritten bool) {
	w := b[:min(len(b), journalBodyMax+journalLookahead)]
	if cut || len(w) < len(b) {
		cut = redact.TailRun(w) < journalBodyMax // a run wholly past the cut is not kept anyway
	}
	m = redact.Bytes(w, cut)
	rewritten = len(m) > 0 && (len(w) == 0 || &m[0] != &w[0])
	return m[:min(len(m), journalBodyMax)], rewritten
}

// journalText is journalHead as a string.
func journalText(b []byte, cut bool) string {
	m, _ := journalMask(b, cut)
	return string(m)
}

// journalRoute is what the journal knows of a route before a request:
// its name ("POST /payments") and which of its bodies' fields are secrets.
type journalRoute struct {
	name     string
	template string // name with {param} for :param, as the CI report counts it
	red      redaction
	redacted bool
}

// routeKey names a route by method and echo path.
type routeKey struct{ method, path string }

// journalRouteOf is the route's journalRoute: for the registered routes,
// made once by New (a lookup costs no string per request); for a request
// echo did not route, made on the spot.
func (s *Server) journalRouteOf(method, path string) journalRoute {
	if jr, ok := s.jroutes[routeKey{method, path}]; ok {
		return jr
	}
	return newJournalRoute(method, path)
}

func newJournalRoute(method, path string) journalRoute {
	name := method + " " + path
	red, redacted := redactions[name]
	return journalRoute{name: name, template: routeTemplate(name), red: red, redacted: redacted}
}

// routeTemplate writes echo's path parameters as OpenAPI does:
// "POST /payments/:id/capture" -> "POST /payments/{id}/capture".
func routeTemplate(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// indexJournalRoutes makes s.jroutes from the registered routes.
func (s *Server) indexJournalRoutes() {
	s.jroutes = map[routeKey]journalRoute{}
	for _, r := range s.e.Routes() {
		s.jroutes[routeKey{r.Method, r.Path}] = newJournalRoute(r.Method, r.Path)
	}
}

// journalStart is the journal's hook at the start of a request: it wraps the
// response writer and returns it, for journalEnd to record the entry at the
// end (nil: the request is not recorded). Requests no tenant can be named
// for (bad key) and the journal's own routes are not recorded.
func (s *Server) journalStart(c echo.Context) *captureWriter {
	switch c.Path() { // the journal's own routes, and those that empty it
	case "/_sandbox/requests", "/_sandbox/hints", "/_sandbox/report", "/_sandbox/reset", "/_sandbox/tenant":
		return nil
	}
	jr := s.journalRouteOf(c.Request().Method, c.Path())
	limit := journalBodyMax + journalLookahead
	if jr.redacted && len(jr.red.resp) > 0 {
		limit = redactedCaptureMax
	}
	cw := &notesOf(c).capture
	*cw = captureWriter{ResponseWriter: c.Response().Writer, limit: limit, route: jr, room: captures.Get().(*captureRoom)}
	cw.buf = cw.room.b[:0]
	c.Response().Writer = cw
	return cw
}

// journalEnd restores the response writer and records the request.
func (s *Server) journalEnd(c echo.Context, cw *captureWriter, start time.Time) {
	if cw == nil {
		return
	}
	c.Response().Writer = cw.ResponseWriter
	if t := tenantOf(c); t != nil {
		s.journalRecord(c, t, cw.route.name, cw.route.red, cw, start)
	}
	cw.release()
}

func (s *Server) journalRecord(c echo.Context, t *simulator.Tenant, route string, red redaction, cw *captureWriter, start time.Time) {
	r := c.Request()
	status := c.Response().Status
	now := time.Now().UTC()
	if s.svc != nil { // nil only in the package's bare-server tests
		now = s.svc.Now(t)
	}
	reqBody := body(c)
	e := journalRecord{
		at: now, method: r.Method, path: redact.String(r.URL.Path), status: status,
		latencyMs: time.Since(start).Milliseconds(), tenantID: t.ID, requestID: requestID(c),
	}
	e.apiVersion = string(notesOf(c).version)
	// The request body belongs to the request and is never written after
	// readBody: the record keeps it (journalHead copies it when that would
	// pin much unused memory).
	if len(red.req) > 0 {
		reqBody = redactFields(reqBody, red.req, false, false)
	}
	e.reqBody = journalHead(reqBody, false, true)
	// The response's head may be the capture's own buffer, which goes back
	// to its pool: the journal copies it into the slot it fills (add).
	if len(red.resp) > 0 {
		e.respBody, _ = journalMask(redactFields(cw.buf, red.resp, cw.over, true), false)
	} else {
		e.respBody, _ = journalMask(cw.buf, cw.over)
	}
	e.paymentIDs = journalPaymentIDs(c, route, status, cw.buf)
	e.hints, _ = c.Get(ctxHints).([]Hint)
	if more := s.requestHints(c, t, route, status, now); len(e.hints) == 0 {
		e.hints = more // no copy: the usual case, a handler adds none
	} else {
		e.hints = append(e.hints, more...)
	}
	for i := range e.hints { // they quote paths and parameters
		e.hints[i].Message = redact.String(e.hints[i].Message)
	}
	s.journal.add(&e)
	if s.svc != nil {
		var hints []observe.Hint
		if len(e.hints) > 0 {
			hints = make([]observe.Hint, len(e.hints))
			for i, h := range e.hints {
				hints[i] = observe.Hint(h)
			}
		}
		s.svc.Publish(observe.Happening{Kind: observe.RequestAnswered, TenantID: t.ID, At: now, RequestID: e.requestID,
			Route: cw.route.template, Status: status, Hints: hints})
		if diffs, _ := c.Get(ctxMigration).([]observe.Difference); len(diffs) > 0 {
			s.svc.Publish(observe.Happening{Kind: observe.DifferenceHit, TenantID: t.ID, At: now, RequestID: e.requestID,
				Differences: diffs})
		}
		s.svc.NoteChange(t.ID) // the dashboard's payment page shows the journal
		if s.journal.NeedsPrune() {
			s.pruneJournal()
		}
	}
}

// pruneJournal drops the journals of tenants that no longer exist (a ttl
// deletes a tenant without a request), so that memory stays bounded by the
// live tenants.
func (s *Server) pruneJournal() {
	tenants, err := s.svc.Tenants()
	if err != nil {
		s.log.Warn("journal: listing tenants to prune", "err", err)
		return
	}
	live := make(map[string]bool, len(tenants))
	for _, t := range tenants {
		live[t.ID] = true
	}
	s.journal.Retain(func(id string) bool { return live[id] })
}

// journalPaymentIDs are the payment ids an entry answers to in
// ?paymentId=: the path id, a created payment's id, approve's
// merchantPaymentId, an error's paymentId, wait's paymentId.
func journalPaymentIDs(c echo.Context, route string, status int, resp []byte) []string {
	var ids []string
	if strings.Contains(c.Path(), "/payments/:id") {
		ids = append(ids, c.Param("id"))
	}
	if c.Path() == "/_sandbox/wait" || c.Path() == "/_sandbox/disputes" || c.Path() == "/_sandbox/webhooks/events" {
		if id := c.QueryParam("paymentId"); id != "" {
			ids = append(ids, id)
		}
	}
	switch {
	case status >= 400 && len(resp) > 0:
		if id, ok := c.Get(ctxErrorPayment).(string); ok { // the error said it: no parse
			if id != "" {
				ids = append(ids, id)
			}
			break
		}
		var eb struct {
			Error struct {
				PaymentID string `json:"paymentId"`
			} `json:"error"`
		}
		if json.Unmarshal(resp, &eb) == nil && eb.Error.PaymentID != "" {
			ids = append(ids, eb.Error.PaymentID)
		}
	case route == "POST /payments" || route == "POST /client/payments" || route == "POST /payment-attempts/:id/approve" ||
		route == "GET /_sandbox/payment-attempts/:id":
		if n := notesOf(c); n.answered { // the answer's DTO said it: no parse
			id := n.answerPayment
			if id != "" {
				ids = append(ids, id)
			}
			break
		}
		var pb struct {
			ID                string `json:"id"`
			MerchantPaymentID string `json:"merchantPaymentId"`
			PaymentID         string `json:"paymentId"`
		}
		if json.Unmarshal(resp, &pb) == nil {
			for _, id := range []string{pb.ID, pb.MerchantPaymentID, pb.PaymentID} {
				if id != "" {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

// requestHints finds the mistakes of a request that the route and status
// show: a missing idempotency key, a retry after a 504 under a new key, and
// tight polling of one payment.
func (s *Server) requestHints(c echo.Context, t *simulator.Tenant, route string, status int, now time.Time) []Hint {
	var hints []Hint
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return nil
	}
	if idempotentRoutes[route] {
		key := idemKey(c)
		if key == "" {
			hints = append(hints, Hint{Kind: HintMissingIdempotencyKey,
				Message: c.Request().Method + " " + c.Request().URL.Path + " was sent without X-Idempotency-Key; a retry could repeat it"})
		}
		h := fnv.New64a()
		_, _ = h.Write([]byte(c.Request().URL.Path))
		_, _ = h.Write(body(c))
		fp := h.Sum64()
		if status == http.StatusGatewayTimeout {
			s.journal.noteTimeout(t.ID, fp, key)
		} else if retried, old := s.journal.retriedWithNewKey(t.ID, fp, key); retried {
			msg := c.Request().URL.Path + " was repeated after a 504 without an idempotency key"
			switch {
			case key != "" && old != "":
				msg = c.Request().URL.Path + " was repeated after a 504 with a new idempotency key (" + key + " instead of " + old + ")"
			case key != "":
				msg = c.Request().URL.Path + " was repeated after a 504 that had no idempotency key, so the two cannot be matched"
			}
			hints = append(hints, Hint{Kind: HintRetryAfter504NewKey, Message: msg})
		}
	}
	if route == "GET /payments/:id" && s.journal.notePoll(t.ID, c.Param("id"), now) {
		hints = append(hints, Hint{Kind: HintTightPolling,
			Message: "Payment " + c.Param("id") + " was read " + strconv.Itoa(pollCount) + " times within 1s"})
	}
	return hints
}

func statusText(code int) string {
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// listRequests is GET /_sandbox/requests?limit=&paymentId=&status=&since=.
func (s *Server) listRequests(c echo.Context) error {
	var errs []simulator.FieldError
	bad := func(name, desc string) {
		errs = append(errs, simulator.FieldError{Path: "$." + name, Description: desc})
	}
	q := JournalQuery{Limit: 100, PaymentID: c.QueryParam("paymentId")}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > s.journal.Size() {
			bad("limit", "limit must be an integer from 1 to "+strconv.Itoa(s.journal.Size()))
		}
		q.Limit = n
	}
	if v := c.QueryParam("status"); v != "" {
		if len(v) == 3 && strings.HasSuffix(strings.ToLower(v), "xx") && v[0] >= '1' && v[0] <= '5' {
			q.Class = int(v[0] - '0')
		} else if n, err := strconv.Atoi(v); err == nil && n >= 100 && n <= 599 {
			q.Status = n
		} else {
			bad("status", "status must be an HTTP status like 422 or a class like 4xx")
		}
	}
	if v := c.QueryParam("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			bad("since", "since must be an RFC 3339 date-time like 2026-11-22T07:30:00Z")
		}
		q.Since = t
	}
	if len(errs) > 0 {
		return simulator.ValidationError("RequestJournalQuery", errs...).
			WithRecovery("limit is 1 to the journal size, status an HTTP status or class, since RFC 3339; see docs/journal.md#the-request-journal-and-hints")
	}
	return writeJSON(c, http.StatusOK, map[string]any{"data": s.journal.Entries(tenantOf(c).ID, q)})
}

// listHints is GET /_sandbox/hints.
func (s *Server) listHints(c echo.Context) error {
	return writeJSON(c, http.StatusOK, map[string]any{"data": s.journal.Hints(tenantOf(c).ID)})
}
