package snapshot

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// A tenant snapshot is one tenant whole as one JSON document (GET
// /_sandbox/snapshot, `paysandbox tenants export`), loaded into a new tenant
// by POST /_sandbox/tenants, `paysandbox tenants import` and `serve --seed`.
// Format and Version say what the document is; Checksum covers everything
// else, so a truncated or edited file is refused before anything is stored.
// Version 2 (what Seal writes) sums the document's canonical JSON (RFC
// 8785), so a file re-serialised by any tool (sorted keys, other
// whitespace or escapes) stays valid; version 1 files, summed member by
// member with their own key order, are still read.
const (
	Format  = "paysandbox.tenant-snapshot"
	Version = 2
	// snapshotVersion1 is the first format, still read.
	snapshotVersion1 = 1
	// snapshotChecksumPrefix names the checksum's algorithm.
	snapshotChecksumPrefix = "sha256:"
	// snapshotModel is the model 422s of a refused snapshot name.
	snapshotModel = "TenantSnapshot"
	// MaxEventBody bounds one event's stored webhook body.
	MaxEventBody = 256 << 10
)

// Snapshot is a tenant snapshot. Records are the domain's own (their
// tenantId is the exporting tenant's; an import rewrites it). Events carry
// the webhook body they were sent with (the body form, signedAt empty), so
// a replay after an import sends the same bytes.
type Snapshot struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	Checksum string `json:"checksum"`
	// ExportedAt is the base (wall) clock at export.
	ExportedAt time.Time `json:"exportedAt"`
	Tenant     Tenant    `json:"tenant"`
	Data       Data      `json:"data"`
	// Journal is the tenant's request journal (the HTTP adapter's; absent
	// when the snapshot was made without one).
	Journal *Journal `json:"journal,omitempty"`
	// Report is the tenant's CI report counts (observe.ReportCounts, as
	// GET /_sandbox/report?format=json keeps them), absent when none.
	Report json.RawMessage `json:"report,omitempty"`
	// Secrets are the tenant's keys and signing secrets, only when asked
	// for (includeSecrets, --include-secrets).
	Secrets *Secrets `json:"secrets,omitempty"`
	// Skipped names the records the export left out: those whose stored
	// record does not decode, and those that refer to one of them (so that
	// the document still imports). Absent when nothing was left out; the
	// checksum covers it like any member; an import ignores it.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is one record an export left out: its kind (simulator.Record*),
// its id (an idempotency key's key), the stored key of a record that does
// not decode, and why.
type Skipped struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason"`
}

// Tenant is a tenant's settings.
type Tenant struct {
	// ID is the exporting tenant's id (an import makes a new one).
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	// Now is the tenant's clock at export: the imported tenant's clock
	// starts there. ClockOffset is the exporting tenant's offset (Go duration).
	Now         time.Time `json:"now"`
	ClockOffset string    `json:"clockOffset"`
	// WallExpiresAt is the tenant's ttl on the wall clock (zero: none); an
	// import keeps what was left of it at export.
	WallExpiresAt  time.Time               `json:"wallExpiresAt,omitzero"`
	Keys           []Key                   `json:"keys"`
	WebhookURL     string                  `json:"webhookUrl,omitempty"`
	WebhookVersion simulator.APIVersion    `json:"webhookVersion,omitempty"`
	WebhookChaos   *simulator.WebhookChaos `json:"webhookChaos,omitempty"`
	First6Digits   bool                    `json:"first6Digits,omitempty"`
	// Scenarios is the tenant's own rules document ("": the server's).
	Scenarios string             `json:"scenarios,omitempty"`
	Next      *simulator.OneShot `json:"next,omitempty"`
}

// Key is one API key's scopes (the key itself is a secret).
type Key struct {
	Scopes []simulator.Scope `json:"scopes"`
}

// Secrets are a tenant's credentials: APIKeys in the order of
// Tenant.Keys.
type Secrets struct {
	APIKeys        []string  `json:"apiKeys"`
	SigningSecret  string    `json:"signingSecret"`
	PreviousSecret string    `json:"previousSecret,omitempty"`
	PreviousUntil  time.Time `json:"previousUntil,omitzero"`
}

// Data is a tenant's records.
type Data struct {
	Sessions        []*simulator.ClientSession `json:"sessions"`
	Instruments     []*simulator.Instrument    `json:"instruments"`
	Payments        []*simulator.Payment       `json:"payments"`
	IdempotencyKeys []Idempotency              `json:"idempotencyKeys"`
	Attempts        []*simulator.Attempt       `json:"attempts"`
	Disputes        []*simulator.Dispute       `json:"disputes"`
	// Events are in creation order, each with its delivery attempts and
	// its webhook body (Event.Body).
	Events         []*simulator.Event      `json:"events"`
	Jobs           []*simulator.Job        `json:"jobs"`
	MigrationNotes []observe.MigrationNote `json:"migrationNotes"`
}

// Idempotency is one idempotency key and the payment it was used for.
type Idempotency struct {
	Key       string `json:"key"`
	PaymentID string `json:"paymentId"`
}

// Journal is the request journal: its entries, oldest first, and
// the hint summaries (which also count what the entries no longer show).
type Journal struct {
	Entries []Request `json:"entries"`
	Hints   []Hint    `json:"hints"`
}

// Request is one journal entry, as GET /_sandbox/requests shows it,
// with the payments it is about (the paymentId filter).
type Request struct {
	At           time.Time     `json:"at"`
	Method       string        `json:"method"`
	Path         string        `json:"path"`
	Status       int           `json:"status"`
	LatencyMs    int64         `json:"latencyMs"`
	RequestID    string        `json:"requestId"`
	RequestBody  string        `json:"requestBody"`
	ResponseBody string        `json:"responseBody"`
	Hints        []RequestHint `json:"hints"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	PaymentIDs   []string      `json:"paymentIds,omitempty"`
}

// RequestHint is one hint of a journal entry.
type RequestHint struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Hint is one kind's hint summary.
type Hint struct {
	Kind             string   `json:"kind"`
	Count            int      `json:"count"`
	LatestRequestIDs []string `json:"latestRequestIds"`
	LatestEventIDs   []string `json:"latestEventIds,omitempty"`
	LastMessage      string   `json:"lastMessage"`
}

// Seal sets the snapshot's format, version and checksum and answers the
// document as written: JSON, HTML characters unescaped, a final newline.
func (s *Snapshot) Seal() ([]byte, error) {
	s.Format, s.Version, s.Checksum = Format, Version, ""
	b, err := encodeSnapshot(s)
	if err != nil {
		return nil, err
	}
	sum, err := snapshotChecksum(b, Version)
	if err != nil {
		return nil, err
	}
	s.Checksum = sum
	return encodeSnapshot(s)
}

func encodeSnapshot(s *Snapshot) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// snapshotChecksum is "sha256:" and the hex SHA-256 of the document
// without its checksum member, as the format version sums it.
//
// Version 2: the document's canonical JSON (CanonicalJSON, RFC 8785):
// member order, whitespace, escapes and the spelling of numbers do not
// count; any other change (a value, a member, a cut) does.
//
// Version 1: the top-level members, sorted by name, each value with its
// insignificant whitespace removed (json.Compact) as {"name":value,...}:
// members nested deeper keep the order they were written in.
func snapshotChecksum(doc []byte, version int) (string, error) {
	if version != snapshotVersion1 {
		c, err := canonicalJSON(doc, "checksum")
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(c)
		return snapshotChecksumPrefix + hex.EncodeToString(sum[:]), nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return "", err
	}
	delete(top, "checksum")
	names := slices.Sorted(maps.Keys(top))
	h := sha256.New()
	var buf bytes.Buffer
	h.Write([]byte("{"))
	for i, k := range names {
		if i > 0 {
			h.Write([]byte(","))
		}
		name, _ := json.Marshal(k)
		h.Write(name)
		h.Write([]byte(":"))
		buf.Reset()
		if err := json.Compact(&buf, top[k]); err != nil {
			return "", err
		}
		h.Write(buf.Bytes())
	}
	h.Write([]byte("}"))
	return snapshotChecksumPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// Is reports whether a request body is a snapshot rather than a
// tenant creation request: gzip data, or a JSON object with a format
// member before anything malformed (a snapshot cut short is still one, so
// that it is refused as a snapshot).
func Is(body []byte) bool {
	if isGzip(body) {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key == "format" {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// Open reads a snapshot document (JSON, or JSON compressed with
// gzip, at most maxBytes once decompressed) and checks, in this order, that
// it is JSON, its format and version, its checksum, its shape (no unknown
// member) and the limits of each record (Snapshot.Check). Errors:
// RequestValidationError (422) at the path of what is wrong;
// PayloadTooLarge past maxBytes.
func Open(b []byte, maxBytes int64) (*Snapshot, error) {
	if isGzip(b) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, Refused("$", "the gzip data is corrupted: "+err.Error())
		}
		plain, err := io.ReadAll(io.LimitReader(zr, maxBytes+1))
		if err != nil {
			return nil, Refused("$", "the gzip data is truncated or corrupted: "+err.Error())
		}
		if int64(len(plain)) > maxBytes {
			return nil, ErrTooLarge(maxBytes)
		}
		b = plain
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, Refused("$", "the document is not a JSON object (truncated or corrupted?): "+err.Error())
	}
	var format string
	if err := json.Unmarshal(top["format"], &format); err != nil || format != Format {
		return nil, Refused("$.format", fmt.Sprintf("format must be %q", Format))
	}
	var version int
	if err := json.Unmarshal(top["version"], &version); err != nil || (version != Version && version != snapshotVersion1) {
		return nil, Refused("$.version", fmt.Sprintf("version %s is not one this sandbox reads (it reads versions %d and %d)", strings.TrimSpace(string(top["version"])), snapshotVersion1, Version))
	}
	var sum string
	if err := json.Unmarshal(top["checksum"], &sum); err != nil || !strings.HasPrefix(sum, snapshotChecksumPrefix) {
		return nil, Refused("$.checksum", `checksum must be "sha256:" and 64 hex digits`)
	}
	want, err := snapshotChecksum(b, version)
	if err != nil {
		return nil, Refused("$", "the document cannot be summed: "+err.Error())
	}
	if sum != want {
		return nil, Refused("$.checksum", "the checksum does not match the document: it was truncated, corrupted or edited after export")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // metadata keeps its exact numbers, as a request's does
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, Refused("$", "the document does not have the snapshot's shape: "+err.Error())
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// ErrTooLarge is the 413 of a snapshot above the import limit.
func ErrTooLarge(maxBytes int64) *simulator.Error {
	return simulator.Errorf(simulator.CodePayloadTooLarge, "The snapshot exceeds the import limit of %d bytes", maxBytes).
		WithRecovery("Raise the server's --snapshot-max-bytes, or export a smaller tenant.")
}

// Refused is the 422 of a snapshot refused at path (a JSONPath into
// the document) because of problem; nothing of it is stored.
func Refused(path, problem string) *simulator.Error {
	e := simulator.ValidationError(snapshotModel, simulator.FieldError{Path: path, Description: problem})
	e.Message = "The snapshot was refused; nothing of it was stored"
	e.Recovery = "Send the file as exported (GET /_sandbox/snapshot, paysandbox tenants export), or fix what validationErrors names; nothing of it was stored."
	return e
}

// Check applies the request limits to each record (lengths, nesting,
// sizes), checks that ids fit the store and have the
// server's shapes, that records agree with the settings, and that the
// whole is what the API could have made (checkLive: enums, amounts,
// currencies, references, keys, clocks). It answers the first problem as
// a 422 at its path.
func (s *Snapshot) Check() error {
	fail := func(path, problem string) error { return Refused(path, problem) }
	t := &s.Tenant
	if len(t.Keys) == 0 {
		return fail("$.tenant.keys", "a tenant has at least one API key")
	}
	for i, k := range t.Keys {
		for j, sc := range k.Scopes {
			if !simulator.ValidScope(string(sc)) {
				return fail(fmt.Sprintf("$.tenant.keys[%d].scopes[%d]", i, j), fmt.Sprintf("unknown scope %q", sc))
			}
		}
	}
	if s.Secrets != nil {
		if len(s.Secrets.APIKeys) != len(t.Keys) {
			return fail("$.secrets.apiKeys", "there must be one API key per entry of tenant.keys")
		}
		for i, k := range s.Secrets.APIKeys {
			if k == "" || len(k) > simulator.MaxText {
				return fail(fmt.Sprintf("$.secrets.apiKeys[%d]", i), fmt.Sprintf("an API key has 1 to %d characters", simulator.MaxText))
			}
		}
		if s.Secrets.SigningSecret == "" {
			return fail("$.secrets.signingSecret", "signingSecret must not be empty")
		}
	}
	if _, err := time.ParseDuration(t.ClockOffset); t.ClockOffset != "" && err != nil {
		return fail("$.tenant.clockOffset", "clockOffset must be a Go duration like 26h0m0s")
	}
	if err := simulator.CheckWebhookURL(t.WebhookURL); err != nil {
		return fail("$.tenant.webhookUrl", "webhookUrl "+err.Error())
	}
	if t.WebhookVersion != "" {
		if err := simulator.CheckAPIVersion(string(t.WebhookVersion)); err != nil {
			return fail("$.tenant.webhookVersion", err.Error())
		}
	}
	if c := t.WebhookChaos; c != nil && (c.Duplicate < 0 || c.Duplicate > 1 || c.Delay < 0) {
		return fail("$.tenant.webhookChaos", "duplicate must be from 0 to 1 and delay not negative")
	}
	if n := t.Next; n != nil && (n.Rule == "" || n.Remaining < 1 || n.Remaining > simulator.MaxOneShotTimes) {
		return fail("$.tenant.next", fmt.Sprintf("a one-shot names a rule and has 1 to %d payments remaining", simulator.MaxOneShotTimes))
	}
	d := &s.Data
	checks := []struct {
		name, idField string
		kind          simulator.IDKind
		n             int
		rec           func(i int) (id string, v any)
	}{
		{"sessions", "id", simulator.IDUUID, len(d.Sessions), func(i int) (string, any) {
			return recOf(d.Sessions[i], func(r *simulator.ClientSession) string { return r.ID })
		}},
		{"instruments", "token", simulator.IDPaymentToken, len(d.Instruments), func(i int) (string, any) {
			return recOf(d.Instruments[i], func(r *simulator.Instrument) string { return r.Token })
		}},
		{"payments", "id", simulator.IDPayment, len(d.Payments), func(i int) (string, any) {
			return recOf(d.Payments[i], func(r *simulator.Payment) string { return r.ID })
		}},
		{"attempts", "id", simulator.IDUUID, len(d.Attempts), func(i int) (string, any) {
			return recOf(d.Attempts[i], func(r *simulator.Attempt) string { return r.ID })
		}},
		{"disputes", "id", simulator.IDUUID, len(d.Disputes), func(i int) (string, any) {
			return recOf(d.Disputes[i], func(r *simulator.Dispute) string { return r.ID })
		}},
		{"jobs", "id", simulator.IDUUID, len(d.Jobs), func(i int) (string, any) { return recOf(d.Jobs[i], func(r *simulator.Job) string { return r.ID }) }},
	}
	for _, c := range checks {
		seen := make(map[string]bool, c.n)
		for i := range c.n {
			path := fmt.Sprintf("$.data.%s[%d]", c.name, i)
			id, v := c.rec(i)
			if v == nil {
				return fail(path, "a record must not be null")
			}
			if err := checkSnapshotID(id); err != nil {
				return fail(path+"."+c.idField, err.Error())
			}
			if err := simulator.CheckIDSyntax(c.kind, id); err != nil {
				return fail(path+"."+c.idField, err.Error())
			}
			if seen[id] {
				return fail(path+"."+c.idField, fmt.Sprintf("id %q appears twice", id))
			}
			seen[id] = true
			if p, problem := checkSnapshotRecord(v); problem != "" {
				return fail(path+p, problem)
			}
		}
	}
	payments := make(map[string]bool, len(d.Payments))
	for i, p := range d.Payments {
		path := fmt.Sprintf("$.data.payments[%d]", i)
		if err := simulator.CheckMetadataSize(snapshotModel, path+".metadata", p.Metadata); err != nil {
			return fail(path+".metadata", fmt.Sprintf("metadata is at most %d bytes once encoded as JSON", simulator.MaxMetadataBytes))
		}
		if n := p.TransactionCount(); n > simulator.MaxTransactions {
			return fail(path+".transactions", fmt.Sprintf("a payment holds at most %d transactions (captures and refunds); this one has %d", simulator.MaxTransactions, n))
		}
		payments[p.ID] = true
	}
	for i, cs := range d.Sessions {
		if err := simulator.CheckMetadataSize(snapshotModel, "", cs.Data.Metadata); err != nil {
			return fail(fmt.Sprintf("$.data.sessions[%d].data.metadata", i), fmt.Sprintf("metadata is at most %d bytes once encoded as JSON", simulator.MaxMetadataBytes))
		}
	}
	for i, k := range d.IdempotencyKeys {
		path := fmt.Sprintf("$.data.idempotencyKeys[%d]", i)
		if k.Key == "" || len(k.Key) > simulator.MaxText {
			return fail(path+".key", fmt.Sprintf("an idempotency key has 1 to %d characters", simulator.MaxText))
		}
		if !payments[k.PaymentID] {
			return fail(path+".paymentId", fmt.Sprintf("no payment %q in data.payments", k.PaymentID))
		}
	}
	events := make(map[string]bool, len(d.Events))
	for i, e := range d.Events {
		path := fmt.Sprintf("$.data.events[%d]", i)
		switch {
		case e == nil:
			return fail(path, "a record must not be null")
		case checkSnapshotID(e.ID) != nil:
			return fail(path+".id", checkSnapshotID(e.ID).Error())
		case simulator.CheckIDSyntax(simulator.IDUUID, e.ID) != nil:
			return fail(path+".id", simulator.CheckIDSyntax(simulator.IDUUID, e.ID).Error())
		case events[e.ID]:
			return fail(path+".id", fmt.Sprintf("id %q appears twice", e.ID))
		case !slices.Contains(simulator.EventTypes, e.Type):
			return fail(path+".eventType", fmt.Sprintf("unknown event type %q", e.Type))
		case e.Status != simulator.DeliveryPending && e.Status != simulator.DeliveryDelivered && e.Status != simulator.DeliveryExhausted:
			return fail(path+".status", fmt.Sprintf("unknown delivery status %q", e.Status))
		case checkSnapshotID(e.PaymentID) != nil:
			return fail(path+".paymentId", checkSnapshotID(e.PaymentID).Error())
		case len(e.Body) > MaxEventBody:
			return fail(path+".body", fmt.Sprintf("a webhook body is at most %d bytes", MaxEventBody))
		case !json.Valid(e.Body) || !bytes.HasPrefix(bytes.TrimSpace(e.Body), []byte("{")):
			return fail(path+".body", "body must be the event's webhook body (a JSON object)")
		}
		events[e.ID] = true
	}
	for i, n := range d.MigrationNotes {
		if n.Kind == "" || len(n.Kind) > simulator.MaxText || len(n.ExampleRequestIDs) > observe.MigrationExamples {
			return fail(fmt.Sprintf("$.data.migrationNotes[%d]", i), fmt.Sprintf("a note has a kind and at most %d example request ids", observe.MigrationExamples))
		}
	}
	if p := s.checkLive(); p != nil {
		return fail(p.path, p.problem)
	}
	return nil
}

// recOf is a record's id and the record, or nil for a null record.
func recOf[T any](r *T, id func(*T) string) (string, any) {
	if r == nil {
		return "", nil
	}
	return id(r), r
}

// checkSnapshotID: an id is what the store can key (no ':' or '/').
func checkSnapshotID(id string) error {
	switch {
	case id == "":
		return errors.New("id must not be empty")
	case len(id) > simulator.MaxText:
		return fmt.Errorf("an id has at most %d characters", simulator.MaxText)
	case strings.ContainsAny(id, ":/"):
		return fmt.Errorf("id %q must not contain ':' or '/'", id)
	}
	return nil
}

// snapshotFreeForm are the members whose values are not free text of the
// merchant's: metadata and options (bounded by size), and the scenario plan
// a rule gave a payment (the server's own words).
var snapshotFreeForm = map[string]bool{"metadata": true, "options": true, "plan": true}

// snapshotStatedLengths are the members whose request rule states its own
// length (the vendor's productData.pageUrl).
var snapshotStatedLengths = map[string]int{"pageUrl": simulator.MaxPageURL}

// checkSnapshotRecord walks one record as JSON: nesting at most
// simulator.MaxDepth levels, and every string outside snapshotFreeForm at
// most simulator.MaxText characters. It answers the path (relative to the
// record) and the problem, "" when the record fits.
func checkSnapshotRecord(v any) (path, problem string) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", "the record cannot be encoded: " + err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return "", "the record cannot be read: " + err.Error()
	}
	var walk func(x any, path string, depth int) (string, string)
	walk = func(x any, path string, depth int) (string, string) {
		if depth > simulator.MaxDepth {
			return path, fmt.Sprintf("JSON nesting is at most %d levels", simulator.MaxDepth)
		}
		switch t := x.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if snapshotFreeForm[k] {
					if p := treeDepth(t[k], path+"."+k, depth+1); p != "" {
						return p, fmt.Sprintf("JSON nesting is at most %d levels", simulator.MaxDepth)
					}
					continue
				}
				if p, prob := walk(t[k], path+"."+k, depth+1); prob != "" {
					return p, prob
				}
			}
		case []any:
			for i, e := range t {
				if p, prob := walk(e, fmt.Sprintf("%s[%d]", path, i), depth+1); prob != "" {
					return p, prob
				}
			}
		case string:
			limit := simulator.MaxText
			if n, ok := snapshotStatedLengths[path[strings.LastIndexByte(path, '.')+1:]]; ok {
				limit = n
			}
			if n := len([]rune(t)); n > limit {
				return path, fmt.Sprintf("a text value has at most %d characters (this one %d)", limit, n)
			}
		}
		return "", ""
	}
	return walk(tree, "", 1)
}

// treeDepth is the path where x, at depth, nests deeper than
// simulator.MaxDepth ("" when it does not).
func treeDepth(x any, path string, depth int) string {
	if depth > simulator.MaxDepth {
		return path
	}
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			if p := treeDepth(v, path+"."+k, depth+1); p != "" {
				return p
			}
		}
	case []any:
		for i, v := range t {
			if p := treeDepth(v, fmt.Sprintf("%s[%d]", path, i), depth+1); p != "" {
				return p
			}
		}
	}
	return ""
}
