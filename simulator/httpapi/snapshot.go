package httpapi

import (
	"crypto/subtle"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// DefaultSnapshotMaxBytes is the largest snapshot POST /_sandbox/tenants
// takes when Options.SnapshotMaxBytes is 0 (docs/limits.md: a limit of
// its own, well above MaxBody).
const DefaultSnapshotMaxBytes = 64 << 20

// snapshotMax is the body limit of POST /_sandbox/tenants.
func (s *Server) snapshotMax() int64 {
	if s.opt.SnapshotMaxBytes > 0 {
		return s.opt.SnapshotMaxBytes
	}
	return DefaultSnapshotMaxBytes
}

// bodyLimit is how large a request's body may be: the snapshot limit for
// POST /_sandbox/tenants (a snapshot import), MaxBody otherwise.
func (s *Server) bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/_sandbox/tenants" {
		return s.snapshotMax()
	}
	return MaxBody
}

// withSecrets reports that a snapshot request asks for the tenant's secrets
// (authEveryScope; any other value of includeSecrets is getSnapshot's 422).
func withSecrets(c echo.Context) bool { return c.QueryParam("includeSecrets") == "true" }

// getSnapshot is GET /_sandbox/snapshot[?includeSecrets=true]: the tenant
// whole, its journal included, as one sealed document.
func (s *Server) getSnapshot(c echo.Context) error {
	secrets := false
	switch v := c.QueryParam("includeSecrets"); v {
	case "", "false":
	case "true":
		secrets = true
	default:
		return simulator.ValidationError("SnapshotQuery", simulator.FieldError{Path: "$.includeSecrets", Description: "includeSecrets must be true or false"})
	}
	t := tenantOf(c)
	snap, err := s.svc.ExportSnapshot(t, secrets)
	if err != nil {
		return err
	}
	snap.Journal = s.journal.Snapshot(t.ID)
	b, err := snap.Seal()
	if err != nil {
		return err
	}
	if n := len(snap.Skipped); n > 0 {
		c.Response().Header().Add("Sandbox-Warning", fmt.Sprintf("%d record(s) left out: unreadable, or referring to one (listed in the snapshot's skipped member)", n))
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// importSnapshot is POST /_sandbox/tenants with a snapshot body: 201 with
// the new tenant's credentials, as a creation answers. What lies beyond
// this server's bounds (journal entries, finished webhook events) is
// dropped, oldest first, and named in a Sandbox-Warning.
func (s *Server) importSnapshot(c echo.Context, b []byte) error {
	snap, err := snapshot.Open(b, s.snapshotMax())
	if err != nil {
		return err
	}
	if err := s.checkSnapshot(snap); err != nil {
		return err
	}
	trimmed := snap.Trim(s.snapshotBounds())
	maskDeliveryLog(snap)
	t, err := s.svc.ImportSnapshot(snap, service.SnapshotImport{})
	if err != nil {
		return err
	}
	// The import itself is not journaled (no ctxTenant): the new tenant's
	// journal is the snapshot's, as exported.
	s.journal.Restore(t.ID, snap.Journal)
	if len(trimmed) > 0 {
		c.Response().Header().Set("Sandbox-Warning", SnapshotTrimWarning(trimmed))
	}
	return writeJSON(c, http.StatusCreated, tenantCreated(t))
}

// SnapshotTrimWarning is the Sandbox-Warning of an import that dropped
// what lay beyond the server's bounds (Snapshot.Trim's lines).
func SnapshotTrimWarning(trimmed []string) string {
	return "snapshot trimmed to this server's bounds: " + strings.Join(trimmed, "; ")
}

// snapshotBounds are this server's bounds a snapshot is trimmed to.
func (s *Server) snapshotBounds() snapshot.Bounds {
	r := s.svc.Retention()
	return snapshot.Bounds{JournalEntries: s.journal.Size(), EventsKeep: r.Keep, EventsMaxAge: r.MaxAge}
}

// checkSnapshot applies what only the HTTP adapter knows to a snapshot:
// the journal's rules (checkSnapshotJournal) and the admin key, which no
// tenant's key may equal.
func (s *Server) checkSnapshot(snap *snapshot.Snapshot) error {
	if err := checkSnapshotJournal(snap.Journal); err != nil {
		return err
	}
	if sec := snap.Secrets; sec != nil && s.opt.AdminKey != "" {
		for i, k := range sec.APIKeys {
			if subtle.ConstantTimeCompare([]byte(k), []byte(s.opt.AdminKey)) == 1 {
				return snapshot.Refused(fmt.Sprintf("$.secrets.apiKeys[%d]", i), "a tenant's API key must not be the sandbox's admin key")
			}
		}
	}
	return nil
}

// SeedSnapshot loads snap as serve --seed does (service.SeedSnapshot), its
// journal included when the tenant is made now; trimmed are the lines of
// what lay beyond the server's bounds (Snapshot.Trim).
func (s *Server) SeedSnapshot(snap *snapshot.Snapshot, keySeed string) (t *simulator.Tenant, created bool, trimmed []string, err error) {
	if err := s.checkSnapshot(snap); err != nil {
		return nil, false, nil, err
	}
	trimmed = snap.Trim(s.snapshotBounds())
	maskDeliveryLog(snap)
	t, created, err = s.svc.SeedSnapshot(snap, keySeed)
	if err == nil && created {
		s.journal.Restore(t.ID, snap.Journal)
	}
	return t, created, trimmed, err
}

// maskDeliveryLog masks what the delivery log keeps of each receiver's
// answer (its head and the error) as a live attempt's is when it is
// stored; the webhook bodies themselves are sent as they are, never
// altered.
func maskDeliveryLog(snap *snapshot.Snapshot) {
	for _, e := range snap.Data.Events {
		for i := range e.Attempts {
			a := &e.Attempts[i]
			a.ResponseBodyHead, a.Error = redact.String(a.ResponseBodyHead), redact.String(a.Error)
		}
	}
}

// journalHintMessageMax bounds a restored hint message: a live one quotes
// a path, which the header block bounds, and a few words.
const journalHintMessageMax = MaxHeaderBytes + 1<<10

// checkSnapshotJournal applies the live journal's rules to a snapshot's
// journal: bodies cut as the journal cuts them, paths as long as a request
// line may be, hints of the known kinds (hintFixes) and at most one of a
// kind per entry and per summary, no negative counts. Entries past the
// journal's size are not refused: Snapshot.Trim drops them.
func checkSnapshotJournal(sj *snapshot.Journal) error {
	if sj == nil {
		return nil
	}
	fail := func(path, problem string) error { return snapshot.Refused(path, problem) }
	knownKind := func(path, kind string, seen map[string]bool) error {
		if _, ok := hintFixes[kind]; !ok {
			return fail(path, fmt.Sprintf("unknown hint kind %q (one of %s)", kind, strings.Join(slices.Sorted(maps.Keys(hintFixes)), ", ")))
		}
		if seen[kind] {
			return fail(path, fmt.Sprintf("a second hint of kind %q", kind))
		}
		seen[kind] = true
		return nil
	}
	for i, e := range sj.Entries {
		path := fmt.Sprintf("$.journal.entries[%d]", i)
		switch {
		case len(e.RequestBody) > journalBodyMax:
			return fail(path+".requestBody", fmt.Sprintf("a journal body is at most %d bytes", journalBodyMax))
		case len(e.ResponseBody) > journalBodyMax:
			return fail(path+".responseBody", fmt.Sprintf("a journal body is at most %d bytes", journalBodyMax))
		case len(e.Method) > 16 || len(e.Path) > MaxHeaderBytes || len(e.RequestID) > simulator.MaxText || len(e.APIVersion) > 16:
			return fail(path, "method, path, requestId or apiVersion is longer than a request's")
		case len(e.PaymentIDs) > 16:
			return fail(path+".paymentIds", "an entry names at most 16 payments")
		case e.Status < 0 || e.Status > 999 || e.LatencyMs < 0:
			return fail(path, "status is from 0 to 999 and latencyMs not negative")
		case e.At.Before(snapshot.ClockMin) || e.At.After(snapshot.ClockMax):
			return fail(path+".at", "at is outside the range a sandbox clock takes")
		}
		seen := map[string]bool{}
		for j, h := range e.Hints {
			hp := fmt.Sprintf("%s.hints[%d]", path, j)
			if err := knownKind(hp+".kind", h.Kind, seen); err != nil {
				return err
			}
			if len(h.Message) > journalHintMessageMax {
				return fail(hp+".message", fmt.Sprintf("a hint's message is at most %d bytes", journalHintMessageMax))
			}
		}
	}
	seen := map[string]bool{}
	for i, h := range sj.Hints {
		path := fmt.Sprintf("$.journal.hints[%d]", i)
		if err := knownKind(path+".kind", h.Kind, seen); err != nil {
			return err
		}
		if h.Count < 0 || len(h.LastMessage) > journalHintMessageMax || len(h.LatestRequestIDs) > hintLatest || len(h.LatestEventIDs) > hintLatest {
			return fail(path, fmt.Sprintf("a hint summary has a count that is not negative, a message of at most %d bytes and at most %d latest ids", journalHintMessageMax, hintLatest))
		}
	}
	return nil
}

// Snapshot is the tenant's journal for a tenant snapshot: its entries,
// oldest first, and its hint summaries.
func (j *Journal) Snapshot(tenantID string) *snapshot.Journal {
	out := &snapshot.Journal{Entries: []snapshot.Request{}, Hints: []snapshot.Hint{}}
	j.mu.Lock() // held while the entries are copied: a ring slot's buffer is reused
	var recs []*journalRecord
	if tj := j.by[tenantID]; tj != nil {
		n := len(tj.ring)
		for i := 0; i < n; i++ {
			recs = append(recs, &tj.ring[(tj.next+i)%n]) // oldest first
		}
	}
	for _, r := range recs {
		e := snapshot.Request{
			At: r.at, Method: r.method, Path: r.path, Status: r.status, LatencyMs: r.latencyMs, RequestID: r.requestID,
			RequestBody: string(r.reqBody), ResponseBody: string(r.respBody), APIVersion: r.apiVersion,
			Hints: []snapshot.RequestHint{},
		}
		for _, id := range r.paymentIDs { // masked as the path is: the raw id stays in memory, for ?paymentId=
			e.PaymentIDs = append(e.PaymentIDs, redact.String(id))
		}
		for _, h := range r.hints {
			e.Hints = append(e.Hints, snapshot.RequestHint{Kind: h.Kind, Message: h.Message})
		}
		out.Entries = append(out.Entries, e)
	}
	j.mu.Unlock()
	for _, h := range j.Hints(tenantID) {
		out.Hints = append(out.Hints, snapshot.Hint{Kind: h.Kind, Count: h.Count, LatestRequestIDs: h.LatestRequestIDs,
			LatestEventIDs: h.LatestEventIDs, LastMessage: h.LastMessage})
	}
	return out
}

// Restore makes sj tenantID's journal (its newest Size entries), replacing
// what the tenant had; nil clears it. What it keeps is masked as a live
// entry is when it is made (internal/redact): paths, bodies, hint messages
// and the payment ids an entry answers to.
func (j *Journal) Restore(tenantID string, sj *snapshot.Journal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.by, tenantID)
	if sj == nil {
		return
	}
	tj := j.tenant(tenantID)
	entries := sj.Entries
	if len(entries) > j.size {
		entries = entries[len(entries)-j.size:]
	}
	for _, e := range entries {
		r := journalRecord{at: e.At, method: e.Method, path: redact.String(e.Path), status: e.Status, latencyMs: e.LatencyMs,
			tenantID: tenantID, requestID: e.RequestID, apiVersion: e.APIVersion}
		for _, id := range e.PaymentIDs {
			r.paymentIDs = append(r.paymentIDs, redact.String(id))
		}
		r.reqBody = restoredBody(e.RequestBody)
		r.respBody = restoredBody(e.ResponseBody)
		for _, h := range e.Hints {
			r.hints = append(r.hints, Hint{Kind: h.Kind, Message: redact.String(h.Message)})
		}
		tj.ring = append(tj.ring, r)
	}
	tj.next = len(tj.ring) % j.size
	for _, h := range sj.Hints {
		if _, known := hintFixes[h.Kind]; !known { // checkSnapshotJournal refuses them: memory stays bounded
			continue
		}
		tj.summary[h.Kind] = &HintSummary{Kind: h.Kind, Count: h.Count, LatestRequestIDs: append([]string{}, h.LatestRequestIDs...),
			LatestEventIDs: append([]string(nil), h.LatestEventIDs...), LastMessage: redact.String(h.LastMessage), Fix: hintFixes[h.Kind]}
	}
}

// restoredBody is a snapshot's journal body as the journal keeps one:
// masked (journalMask; a body of journalBodyMax bytes may have been cut
// there, so a digit run at its end is masked whole) and owned.
func restoredBody(b string) []byte {
	if b == "" {
		return nil
	}
	m, _ := journalMask([]byte(b), len(b) >= journalBodyMax)
	return m
}
