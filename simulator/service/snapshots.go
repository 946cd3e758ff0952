package service

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// snapshotAll is a payment list limit that reads every payment.
const snapshotAll = 1 << 30

// ExportSnapshot reads tenant t whole in one read transaction: its settings
// (clock, ttl, scenarios, one-shot, webhook endpoint, version and chaos,
// scopes), its records and its delivery log, and with includeSecrets its
// keys and signing secrets. Each event carries the webhook body it is sent
// with (signedAt empty). A record that does not decode is left out, with
// the records that refer to it, and named in snap.Skipped. The caller adds
// what is kept outside the store (the request journal) and seals it
// (Snapshot.Seal).
// Errors: Unauthorized (the tenant no longer exists).
func (s *Service) ExportSnapshot(t *simulator.Tenant, includeSecrets bool) (*snapshot.Snapshot, error) {
	snap := &snapshot.Snapshot{}
	rc, err := s.report.Export(t.ID)
	if err != nil {
		return nil, err
	}
	notes, err := s.migration.Export(t.ID)
	if err != nil {
		return nil, err
	}
	err = s.store.View(func(tx simulator.Tx) error {
		base := s.clock.Now()
		cur, err := tx.Tenant(t.ID)
		if err != nil {
			return err
		}
		if cur == nil {
			return simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
		}
		snap.ExportedAt = simulator.NormTime(base)
		snap.Tenant = snapshotTenant(cur, base)
		if includeSecrets {
			snap.Secrets = &snapshot.Secrets{SigningSecret: cur.SigningSecret, PreviousSecret: cur.PreviousSecret, PreviousUntil: cur.PreviousUntil}
			for _, k := range cur.APIKeys {
				snap.Secrets.APIKeys = append(snap.Secrets.APIKeys, k.Key)
			}
		}
		var unreadable []simulator.UnreadableRecord
		if snap.Data, unreadable, err = s.snapshotData(tx, cur.ID); err != nil {
			return err
		}
		snap.Skipped = snap.Data.LeaveOut(unreadable)
		if notes.Items != nil {
			snap.Data.MigrationNotes = notes.Items
		}
		snap.Report, err = json.Marshal(rc)
		return err
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshotTenant is tenant t's settings at base (the base clock).
func snapshotTenant(t *simulator.Tenant, base time.Time) snapshot.Tenant {
	st := snapshot.Tenant{
		ID: t.ID, CreatedAt: t.CreatedAt, Now: simulator.NormTime(base.Add(t.ClockOffset)), ClockOffset: t.ClockOffset.String(),
		WallExpiresAt: t.ExpiresAt, WebhookURL: t.WebhookURL, WebhookVersion: t.WebhookAPIVersion(),
		WebhookChaos: t.Clone().WebhookChaos, First6Digits: t.First6Digits, Scenarios: t.Scenarios,
	}
	if t.Next != nil {
		n := *t.Next
		st.Next = &n
	}
	for _, k := range t.APIKeys {
		st.Keys = append(st.Keys, snapshot.Key{Scopes: slices.Clone(k.Scopes)})
	}
	return st
}

// snapshotData reads the tenant's records, each kind in a stable order
// (creation order where the records have one), and the records it skipped
// because they do not decode.
func (s *Service) snapshotData(tx simulator.Tx, tid string) (snapshot.Data, []simulator.UnreadableRecord, error) {
	var events []simulator.UnreadableRecord // whose inputs do not decode (Events listed them)
	d, err := s.readSnapshotData(tx, tid, &events)
	if err != nil {
		return d, nil, err
	}
	return d, append(slices.Clone(tx.Unreadable()), events...), nil
}

// readSnapshotData is snapshotData's reading; the events it could list but
// not read whole go to unreadable.
func (s *Service) readSnapshotData(tx simulator.Tx, tid string, unreadable *[]simulator.UnreadableRecord) (snapshot.Data, error) {
	d := snapshot.Data{IdempotencyKeys: []snapshot.Idempotency{}, Events: []*simulator.Event{}, MigrationNotes: []observe.MigrationNote{}}
	var err error
	if d.Sessions, err = tx.Sessions(tid); err != nil {
		return d, err
	}
	slices.SortFunc(d.Sessions, func(a, b *simulator.ClientSession) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	if d.Instruments, err = tx.Instruments(tid); err != nil {
		return d, err
	}
	slices.SortFunc(d.Instruments, func(a, b *simulator.Instrument) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.Token, b.Token))
	})
	page, err := tx.ListPayments(tid, simulator.PaymentQuery{Limit: snapshotAll})
	if err != nil {
		return d, err
	}
	d.Payments = page.Payments
	slices.Reverse(d.Payments) // oldest first
	keys, err := tx.IdempotencyKeys(tid)
	if err != nil {
		return d, err
	}
	for k, pid := range keys {
		d.IdempotencyKeys = append(d.IdempotencyKeys, snapshot.Idempotency{Key: k, PaymentID: pid})
	}
	slices.SortFunc(d.IdempotencyKeys, func(a, b snapshot.Idempotency) int { return strings.Compare(a.Key, b.Key) })
	if d.Attempts, err = tx.Attempts(tid); err != nil {
		return d, err
	}
	slices.SortFunc(d.Attempts, func(a, b *simulator.Attempt) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	if d.Disputes, err = tx.Disputes(tid, ""); err != nil {
		return d, err
	}
	slices.Reverse(d.Disputes) // oldest first
	events, err := tx.Events(tid, simulator.EventQuery{})
	if err != nil {
		return d, err
	}
	slices.Reverse(events) // creation order
	for _, rec := range events {
		full, err := tx.Event(tid, rec.ID)
		if simulator.ErrorCode(err) == simulator.CodeRecordUnreadable {
			*unreadable = append(*unreadable, simulator.UnreadableRecord{Kind: simulator.RecordEvent, ID: rec.ID})
			continue
		}
		if err != nil {
			return d, err
		}
		if full == nil {
			continue
		}
		body := full.Body
		if s.renderer != nil {
			if body, err = s.renderer.Body(full); err != nil {
				return d, fmt.Errorf("event %s: %w", rec.ID, err)
			}
		}
		rec.Body = body
		d.Events = append(d.Events, rec)
	}
	if d.Jobs, err = tx.DueJobs(tid, time.Unix(1<<40, 0), 0); err != nil {
		return d, err
	}
	d.Sessions = orEmpty(d.Sessions) // empty lists, not null
	d.Instruments = orEmpty(d.Instruments)
	d.Payments = orEmpty(d.Payments)
	d.Attempts = orEmpty(d.Attempts)
	d.Disputes = orEmpty(d.Disputes)
	d.Jobs = orEmpty(d.Jobs)
	return d, nil
}

// orEmpty is l, or an empty list for nil.
func orEmpty[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

// SnapshotImport says how ImportSnapshot names the new tenant: TenantID
// ("": a new id), and the key and signing secret it gets when the snapshot
// carries none ("": new ones).
type SnapshotImport struct {
	TenantID      string
	APIKey        string
	SigningSecret string
}

// ImportSnapshot loads snap (read by snapshot.Open) into a new
// tenant and answers it. Ids are kept (each tenant is its own id space);
// the tenant's clock starts at the snapshot's tenant clock, so jobs stay
// due when they were; its ttl keeps what was left of it at export. The
// snapshot's keys and secrets are used when it carries them, new ones made
// otherwise. Client and 3DS challenge tokens carry their tenant, so each is
// issued anew for the new tenant. Imported PENDING events are held: never
// attempted on their own, replayable. Everything is checked first, then
// written in one write transaction: a refused snapshot stores nothing.
// Errors: RequestValidationError (422) at the snapshot path of what is
// refused: the rules document, the one-shot's rule, the webhook endpoint
// (CheckWebhookEndpoint), an API key or tenant id already in use.
func (s *Service) ImportSnapshot(snap *snapshot.Snapshot, opt SnapshotImport) (*simulator.Tenant, error) {
	if err := s.checkSnapshotSettings(snap); err != nil {
		return nil, err
	}
	t, err := s.snapshotTenantRecord(snap, opt)
	if err != nil {
		return nil, err
	}
	var report *observe.ReportCounts
	if len(snap.Report) > 0 && string(snap.Report) != "null" {
		report = &observe.ReportCounts{}
		dec := json.NewDecoder(bytes.NewReader(snap.Report))
		dec.DisallowUnknownFields()
		if err := dec.Decode(report); err != nil {
			return nil, snapshot.Refused("$.report", "the report counts do not decode: "+err.Error())
		}
		if err := snapshot.CheckReport(report); err != nil {
			return nil, err
		}
		report.TenantID = t.ID
	}
	err = s.store.Update(func(tx simulator.Tx) error {
		if other, err := tx.Tenant(t.ID); err != nil {
			return err
		} else if other != nil {
			return snapshot.Refused("$.tenant.id", fmt.Sprintf("a tenant %s already exists", t.ID))
		}
		for i, k := range t.APIKeys {
			other, err := tx.TenantByAPIKey(k.Key)
			if err != nil {
				return err
			}
			if other != nil {
				return snapshot.Refused(fmt.Sprintf("$.secrets.apiKeys[%d]", i), "this API key is already in use by a tenant of this sandbox")
			}
		}
		if err := tx.PutTenant(t); err != nil {
			return err
		}
		if err := s.importRecords(tx, t, &snap.Data); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.importObserved(t.ID, report, snap.Data.MigrationNotes); err != nil {
		return nil, err
	}
	if !t.ExpiresAt.IsZero() {
		s.sched.tenantExpiriesChanged()
	}
	s.Kick() // its jobs
	return t, nil
}

// checkSnapshotSettings applies the checks of the settings' own routes: the
// rules document (PUT /_sandbox/scenarios), the one-shot's rule, the
// webhook endpoint (--webhook-allow).
func (s *Service) checkSnapshotSettings(snap *snapshot.Snapshot) error {
	st := &snap.Tenant
	if rb := s.rules(); rb != nil {
		if st.Scenarios != "" {
			if len(st.Scenarios) > MaxScenarioDocument {
				return snapshot.Refused("$.tenant.scenarios", fmt.Sprintf("the rules document is larger than %d KiB", MaxScenarioDocument>>10))
			}
			if _, problems := rb.CheckRules([]byte(st.Scenarios)); len(problems) > 0 {
				return snapshot.Refused("$.tenant.scenarios", fmt.Sprintf("the rules document has %d problem(s); line %d: %s", len(problems), problems[0].Line, problems[0].Message))
			}
		}
		if n := st.Next; n != nil {
			if names := rb.RuleNames(st.Scenarios); !containsString(names, n.Rule) {
				return snapshot.Refused("$.tenant.next.rule", fmt.Sprintf("%q is not a rule of the scenarios in force (%s)", n.Rule, ruleList(names)))
			}
		}
	}
	if err := s.CheckWebhookEndpoint(st.WebhookURL); err != nil {
		return snapshot.Refused("$.tenant.webhookUrl", "webhookUrl "+err.Error())
	}
	return nil
}

// snapshotTenantRecord is the new tenant of snap: its id and credentials,
// its settings, and its clock offset so that its clock reads the
// snapshot's tenant clock now.
func (s *Service) snapshotTenantRecord(snap *snapshot.Snapshot, opt SnapshotImport) (*simulator.Tenant, error) {
	st := &snap.Tenant
	base := simulator.NormTime(s.clock.Now())
	id, key, secret := opt.TenantID, opt.APIKey, opt.SigningSecret
	if id == "" || key == "" || secret == "" {
		nid, nkey, nsecret := s.newTenantCredentials()
		id, key, secret = cmp.Or(id, nid), cmp.Or(key, nkey), cmp.Or(secret, nsecret)
	}
	t := &simulator.Tenant{
		ID: id, SigningSecret: secret, WebhookURL: st.WebhookURL, WebhookVersion: st.WebhookVersion.OrDefault(s.webhookVersion),
		First6Digits: st.First6Digits, CreatedAt: base, Scenarios: st.Scenarios,
	}
	if st.WebhookChaos != nil {
		c := *st.WebhookChaos
		t.WebhookChaos = &c
	}
	if st.Next != nil {
		n := *st.Next
		t.Next = &n
	}
	if !st.Now.IsZero() {
		t.ClockOffset = st.Now.Sub(base)
	}
	if !st.WallExpiresAt.IsZero() {
		left := st.WallExpiresAt.Sub(snap.ExportedAt)
		if left <= 0 {
			return nil, snapshot.Refused("$.tenant.wallExpiresAt", "the tenant's ttl had passed when it was exported")
		}
		t.ExpiresAt = simulator.NormTime(base.Add(left))
	}
	for i, k := range st.Keys {
		ak := simulator.APIKey{Key: key, Scopes: slices.Clone(k.Scopes)}
		if snap.Secrets != nil {
			ak.Key = snap.Secrets.APIKeys[i]
		} else if i > 0 {
			ak.Key = simulator.WithInstance(s.instance, "sk_"+s.ids.NewID(simulator.IDSecret))
		}
		if ak.Scopes == nil {
			ak.Scopes = []simulator.Scope{}
		}
		t.APIKeys = append(t.APIKeys, ak)
	}
	if sec := snap.Secrets; sec != nil {
		t.SigningSecret, t.PreviousSecret, t.PreviousUntil = sec.SigningSecret, sec.PreviousSecret, sec.PreviousUntil
	}
	return t, nil
}

// importRecords writes the snapshot's records as tenant t's, in tx.
func (s *Service) importRecords(tx simulator.Tx, t *simulator.Tenant, d *snapshot.Data) error {
	tid := t.ID
	tokens := map[string]string{} // client and challenge tokens of the exporting tenant -> t's
	reissue := func(old string, kind simulator.IDKind) string {
		if old == "" {
			return ""
		}
		if tok, ok := tokens[old]; ok {
			return tok
		}
		tok := s.tenantCredential(tid, kind)
		tokens[old] = tok
		return tok
	}
	for _, cs := range d.Sessions {
		if cs.ClientToken != "" {
			tok := s.sessionToken(tid, cs.ID)
			tokens[cs.ClientToken], cs.ClientToken = tok, tok
		}
		cs.TenantID = tid
		if err := tx.PutSession(cs); err != nil {
			return err
		}
	}
	for _, in := range d.Instruments {
		in.TenantID = tid
		if err := tx.PutInstrument(in); err != nil {
			return err
		}
	}
	for _, p := range d.Payments {
		p.TenantID = tid
		if p.ThreeDS != nil {
			p.ThreeDS.ChallengeToken = reissue(p.ThreeDS.ChallengeToken, simulator.IDUUID)
			if err := tx.PutChallenge(p.ThreeDS.ChallengeToken, tid, p.ID); err != nil {
				return err
			}
		}
		if p.Required != nil && p.Required.ClientToken != "" {
			p.Required.ClientToken = reissue(p.Required.ClientToken, simulator.IDUUID)
		}
		if err := tx.PutPayment(p); err != nil {
			return err
		}
	}
	for _, k := range d.IdempotencyKeys {
		if err := tx.ClaimIdempotency(tid, k.Key, k.PaymentID); err != nil {
			return err
		}
	}
	for _, a := range d.Attempts {
		a.TenantID = tid
		if err := tx.PutAttempt(a); err != nil {
			return err
		}
	}
	for _, dp := range d.Disputes {
		dp.TenantID = tid
		if err := tx.PutDispute(dp); err != nil {
			return err
		}
	}
	for _, e := range d.Events {
		e.TenantID, e.Payment, e.Dispute = tid, nil, nil // the body form: sent as exported
		if err := tx.AppendEvent(e); err != nil {
			return err
		}
		if err := tx.HoldEvent(e); err != nil {
			return err
		}
	}
	for _, j := range d.Jobs {
		j.TenantID = tid
		j.RealDue = simulator.NormTime(j.Due.Add(-t.ClockOffset))
		if err := tx.PutJob(j); err != nil {
			return err
		}
	}
	return nil
}

// importObserved hands the observers the report counts (nil: none) and
// migration notes of a snapshot just imported as tenant tid. Should that
// fail, the tenant is deleted again, so that a refused import leaves
// nothing behind.
func (s *Service) importObserved(tid string, report *observe.ReportCounts, notes []observe.MigrationNote) error {
	var err error
	if report != nil {
		err = s.report.Import(tid, report)
	}
	if err == nil && len(notes) > 0 {
		err = s.migration.Import(tid, &observe.MigrationNotes{TenantID: tid, Items: notes})
	}
	if err != nil {
		defer s.observers.Drop(tid)()
		if derr := s.store.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData(tid, true) }); derr != nil {
			s.log.Error("an import that failed left its tenant", "err", derr, "tenant", tid)
		}
	}
	return err
}

// SeedSnapshot loads snap at start (serve --seed) as the tenant its
// checksum names, unless that tenant exists already: a restart adds no
// tenant, and the seeded tenant keeps its key. The key and signing secret,
// unless the snapshot carries them, are derived from the checksum with
// keySeed (the admin key, so that the file alone does not give the key;
// "" without one): stable across restarts, even of a :memory: store.
// created says whether the tenant was made now.
func (s *Service) SeedSnapshot(snap *snapshot.Snapshot, keySeed string) (t *simulator.Tenant, created bool, err error) {
	sum, _ := hex.DecodeString(strings.TrimPrefix(snap.Checksum, "sha256:"))
	derive := func(what string) string {
		m := hmac.New(sha256.New, []byte(keySeed))
		m.Write([]byte(what + ":" + snap.Checksum))
		return letters(m.Sum(nil)[:16])
	}
	id := simulator.WithInstance(s.instance, "t_seed_"+letters(sum[:min(len(sum), 8)]))
	if t, err = s.tenantByID(id); err != nil || t != nil {
		return t, false, err
	}
	t, err = s.ImportSnapshot(snap, SnapshotImport{
		TenantID: id, APIKey: simulator.WithInstance(s.instance, "sk_seed_"+derive("key")), SigningSecret: "whsec_seed_" + derive("secret"),
	})
	return t, err == nil, err
}

// letters writes b as hexadecimal with the letters a-p for the digits: the
// log masks digit runs that look like card numbers, and a seeded tenant's
// id and key are printed there.
func letters(b []byte) string {
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = 'a'+c>>4, 'a'+c&15
	}
	return string(out)
}
