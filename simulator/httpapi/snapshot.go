package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// DefaultSnapshotMaxBytes is the largest snapshot POST /_sandbox/tenants
// takes when Options.SnapshotMaxBytes is 0 (SANDBOX.md section 12: a limit of
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
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// importSnapshot is POST /_sandbox/tenants with a snapshot body: 201 with
// the new tenant's credentials, as a creation answers.
func (s *Server) importSnapshot(c echo.Context, b []byte) error {
	snap, err := simulator.OpenSnapshot(b, s.snapshotMax())
	if err != nil {
		return err
	}
	if err := checkSnapshotJournal(snap.Journal); err != nil {
		return err
	}
	t, err := s.svc.ImportSnapshot(snap, service.SnapshotImport{})
	if err != nil {
		return err
	}
	// The import itself is not journaled (no ctxTenant): the new tenant's
	// journal is the snapshot's, as exported.
	s.journal.Restore(t.ID, snap.Journal)
	return writeJSON(c, http.StatusCreated, tenantCreated(t))
}

// SeedSnapshot loads snap as serve --seed does (service.SeedSnapshot), its
// journal included when the tenant is made now.
func (s *Server) SeedSnapshot(snap *simulator.Snapshot, keySeed string) (*simulator.Tenant, bool, error) {
	if err := checkSnapshotJournal(snap.Journal); err != nil {
		return nil, false, err
	}
	t, created, err := s.svc.SeedSnapshot(snap, keySeed)
	if err == nil && created {
		s.journal.Restore(t.ID, snap.Journal)
	}
	return t, created, err
}

// journalHintMessageMax bounds a restored hint message.
const journalHintMessageMax = 4 << 10

// checkSnapshotJournal applies the journal's own bounds to a snapshot's
// journal: bodies cut as the journal cuts them, short fields.
func checkSnapshotJournal(sj *simulator.SnapshotJournal) error {
	if sj == nil {
		return nil
	}
	fail := func(path, problem string) error { return simulator.SnapshotError(path, problem) }
	for i, e := range sj.Entries {
		path := fmt.Sprintf("$.journal.entries[%d]", i)
		switch {
		case len(e.RequestBody) > journalBodyMax:
			return fail(path+".requestBody", fmt.Sprintf("a journal body is at most %d bytes", journalBodyMax))
		case len(e.ResponseBody) > journalBodyMax:
			return fail(path+".responseBody", fmt.Sprintf("a journal body is at most %d bytes", journalBodyMax))
		case len(e.Method) > 16 || len(e.Path) > journalBodyMax || len(e.RequestID) > 255 || len(e.APIVersion) > 16:
			return fail(path, "method, path, requestId or apiVersion is longer than a request's")
		case len(e.PaymentIDs) > 16:
			return fail(path+".paymentIds", "an entry names at most 16 payments")
		}
		for j, h := range e.Hints {
			if len(h.Kind) > 255 || len(h.Message) > journalHintMessageMax {
				return fail(fmt.Sprintf("%s.hints[%d]", path, j), "a hint's kind or message is too long")
			}
		}
	}
	for i, h := range sj.Hints {
		if len(h.Kind) > 255 || len(h.LastMessage) > journalHintMessageMax || len(h.LatestRequestIDs) > hintLatest || len(h.LatestEventIDs) > hintLatest {
			return fail(fmt.Sprintf("$.journal.hints[%d]", i), fmt.Sprintf("a hint summary has a short kind and message and at most %d latest ids", hintLatest))
		}
	}
	return nil
}

// Snapshot is the tenant's journal for a tenant snapshot: its entries,
// oldest first, and its hint summaries.
func (j *Journal) Snapshot(tenantID string) *simulator.SnapshotJournal {
	out := &simulator.SnapshotJournal{Entries: []simulator.SnapshotRequest{}, Hints: []simulator.SnapshotHint{}}
	var recs []journalRecord
	j.mu.Lock()
	if tj := j.by[tenantID]; tj != nil {
		n := len(tj.ring)
		for i := 0; i < n; i++ {
			recs = append(recs, tj.ring[(tj.next+i)%n]) // oldest first
		}
	}
	j.mu.Unlock()
	for _, r := range recs {
		e := simulator.SnapshotRequest{
			At: r.at, Method: r.method, Path: r.path, Status: r.status, LatencyMs: r.latencyMs, RequestID: r.requestID,
			RequestBody: string(r.reqBody), ResponseBody: string(r.respBody), APIVersion: r.apiVersion,
			Hints: []simulator.SnapshotRequestHint{}, PaymentIDs: r.paymentIDs,
		}
		for _, h := range r.hints {
			e.Hints = append(e.Hints, simulator.SnapshotRequestHint{Kind: h.Kind, Message: h.Message})
		}
		out.Entries = append(out.Entries, e)
	}
	for _, h := range j.Hints(tenantID) {
		out.Hints = append(out.Hints, simulator.SnapshotHint{Kind: h.Kind, Count: h.Count, LatestRequestIDs: h.LatestRequestIDs,
			LatestEventIDs: h.LatestEventIDs, LastMessage: h.LastMessage})
	}
	return out
}

// Restore makes sj tenantID's journal (its newest Size entries), replacing
// what the tenant had; nil clears it.
func (j *Journal) Restore(tenantID string, sj *simulator.SnapshotJournal) {
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
		r := journalRecord{at: e.At, method: e.Method, path: e.Path, status: e.Status, latencyMs: e.LatencyMs,
			tenantID: tenantID, requestID: e.RequestID, apiVersion: e.APIVersion, paymentIDs: e.PaymentIDs}
		if e.RequestBody != "" {
			r.reqBody = []byte(e.RequestBody)
		}
		if e.ResponseBody != "" {
			r.respBody = []byte(e.ResponseBody)
		}
		for _, h := range e.Hints {
			r.hints = append(r.hints, Hint{Kind: h.Kind, Message: h.Message})
		}
		tj.ring = append(tj.ring, r)
	}
	tj.next = len(tj.ring) % j.size
	for _, h := range sj.Hints {
		tj.summary[h.Kind] = &HintSummary{Kind: h.Kind, Count: h.Count, LatestRequestIDs: append([]string{}, h.LatestRequestIDs...),
			LatestEventIDs: append([]string(nil), h.LatestEventIDs...), LastMessage: h.LastMessage, Fix: hintFixes[h.Kind]}
	}
}
