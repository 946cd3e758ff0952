//go:build gensinglefile

package storeconv_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestGenerateSingleFile writes testdata/single_file.aof, a data file of the
// single-file layout (every tenant in one buntdb file), through the service
// of the code that wrote that layout, and testdata/single_file.json, what
// that code reads from it (singleFileReads). It only means something on
// that code (the commit before store.Open moved to tenant files):
//
//	go test -tags gensinglefile ./simulator/store -run TestGenerateSingleFile -count=1
func TestGenerateSingleFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "paysandbox.db")
	db, err := store.Open(path, store.FsyncAlways)
	require.NoError(t, err)
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	clk := clock.NewManual(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil, service.Config{AttemptTTL: 2 * time.Hour})

	def, err := svc.EnsureTenant(service.TenantSpec{
		ID: "default", SigningSecret: "secret", WebhookURL: "http://127.0.0.1:1/hook",
		APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}},
	})
	require.NoError(t, err)
	gone, err := svc.CreateTenant(nil, "", "", time.Hour) // expires: what remains is its expired-tenant record
	require.NoError(t, err)
	clk.Advance(2 * time.Hour)
	_, _, err = svc.ExpireTenants()
	require.NoError(t, err)
	t2, err := svc.CreateTenant([]simulator.Scope{simulator.AllScopes[0], simulator.AllScopes[1]}, "http://127.0.0.1:1/h2", "", 30*24*time.Hour)
	require.NoError(t, err)
	_, err = svc.AdvanceClock(ctx, t2, 90*time.Minute) // a tenant clock ahead of the base clock
	require.NoError(t, err)
	t2, err = svc.Tenant(t2.ID)
	require.NoError(t, err)

	for i, tn := range []*simulator.Tenant{def, t2} {
		fillTenant(t, svc, db, clk, tn, i)
	}
	require.NoError(t, db.Close())
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "single_file.aof"), src, 0o644))

	db, err = store.Open(path, store.FsyncNever)
	require.NoError(t, err)
	defer db.Close()
	m := singleFileManifestOf(t, db, []string{def.ID, t2.ID})
	m.APIKeys = []string{"key", t2.APIKeys[0].Key, gone.APIKeys[0].Key, "nokey"}
	m.ExpiredKeys = []string{gone.APIKeys[0].Key, "key", "nokey"}
	reads := singleFileReads(t, db, m)
	out, err := json.MarshalIndent(struct {
		Manifest singleFileManifest `json:"manifest"`
		Reads    map[string]any     `json:"reads"`
	}{m, reads}, "", " ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "single_file.json"), append(out, '\n'), 0o644))
}

// fillTenant writes every kind of record into tn: sessions and their
// tokens, instruments (one vaulted for a customer), payments (settled and
// refunded, by a vaulted instrument and disputed, in a 3DS challenge,
// approved and awaiting authorization), idempotency keys, attempts, events
// (delivered, retrying, pending), jobs and migration notes.
func fillTenant(t *testing.T, svc *service.Service, db *store.DB, clk *clock.Manual, tn *simulator.Tenant, n int) {
	ctx := context.Background()
	amt := func(v int64) *int64 { return &v }
	tokenize := func(mode simulator.ApprovalMode, cur string, amount int64, card string) *service.Tokenized {
		cs, err := svc.CreateSession(tn, simulator.SessionData{
			OrderID: "order-" + tn.ID, CurrencyCode: cur, Amount: amt(amount), CustomerID: "cust-1",
			Metadata: map[string]any{"cart": "c-42", "n": json.Number("12345678901234567890")},
		}, mode)
		require.NoError(t, err)
		tk, err := svc.Tokenize(cs.ClientToken, service.CardInput{
			Number: card, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane Doe",
		})
		require.NoError(t, err)
		clk.Advance(time.Second)
		return tk
	}
	// Settled, then partly refunded.
	tk := tokenize(simulator.ApprovalAuto, "EUR", 1000, "4111111111111111")
	p1, err := svc.CreatePayment(ctx, tn, service.PaymentRequest{Token: tk.Instrument.Token, IdempotencyKey: "idem: first/" + tn.ID})
	require.NoError(t, err)
	require.Equal(t, simulator.StatusAuthorized, p1.Status)
	_, err = svc.CapturePayment(ctx, tn, p1.ID, service.CaptureRequest{Final: true})
	require.NoError(t, err)
	_, err = svc.RefundPayment(ctx, tn, p1.ID, service.RefundRequest{Amount: amt(300), Reason: "partial"})
	require.NoError(t, err)
	// Vaulted for cust-1, paid with, disputed.
	tk = tokenize(simulator.ApprovalAuto, "USD", 2500, "5555555555554444")
	vaulted, err := svc.Vault(ctx, tn, tk.Instrument.Token, "cust-1", false)
	require.NoError(t, err)
	p2, err := svc.CreatePayment(ctx, tn, service.PaymentRequest{Token: vaulted.Token, OrderID: "o-vaulted", CurrencyCode: "USD", Amount: amt(2500), CustomerID: "cust-1", IdempotencyKey: "idem-2"})
	require.NoError(t, err)
	_, err = svc.OpenDispute(tn, p2.ID, "", nil)
	require.NoError(t, err)
	// Authorized, EUR (the filtered list).
	tk = tokenize(simulator.ApprovalAuto, "EUR", 700+int64(n), "4242424242424242")
	_, err = svc.CreatePayment(ctx, tn, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
	// A 3DS challenge waiting for its answer.
	tk = tokenize(simulator.ApprovalAuto, "EUR", 4200, "4916994064252017")
	p3, err := svc.CreatePayment(ctx, tn, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(t, err)
	require.NotNil(t, p3.ThreeDS, "the 3DS challenge card asks for a challenge")
	if n == 0 { // a session and a challenge of the builds whose tokens did not carry their tenant
		require.NoError(t, db.Update(func(tx simulator.Tx) error {
			cs, err := tx.Session(tn.ID, tk.Instrument.SessionID)
			if err != nil {
				return err
			}
			legacy := cs.Clone()
			legacy.ID, legacy.ClientToken = "legacy-session", "cst_test_legacy"
			if err := tx.PutSession(legacy); err != nil {
				return err
			}
			p, err := tx.Payment(tn.ID, p3.ID)
			if err != nil {
				return err
			}
			if err := tx.DeleteChallenge(p.ThreeDS.ChallengeToken); err != nil {
				return err
			}
			p.ThreeDS.ChallengeToken = "ch_test_legacy"
			if err := tx.PutPayment(p); err != nil {
				return err
			}
			return tx.PutChallenge(p.ThreeDS.ChallengeToken, tn.ID, p.ID)
		}))
	}
	// An attempt awaiting approval, and one approved whose authorization is a job.
	tk = tokenize(simulator.ApprovalManual, "GBP", 900, "4111111111111111")
	require.NotNil(t, tk.Attempt)
	tk = tokenize(simulator.ApprovalManual, "GBP", 901, "4111111111111111")
	_, err = svc.ApproveAttempt(tn, tk.Attempt.ID)
	require.NoError(t, err)
	svc.Publish(observe.Happening{Kind: observe.DifferenceHit, TenantID: tn.ID, RequestID: "req_mig_1", At: svc.Now(tn),
		Differences: []observe.Difference{{Kind: "paymentType", Message: "2.4 requires paymentType"}}})

	// Events: the first two delivered, the third retrying, the rest pending.
	evs, err := svc.Events(tn, simulator.EventQuery{})
	require.NoError(t, err)
	require.Greater(t, len(evs), 3)
	slices.Reverse(evs) // oldest first
	for i, ev := range evs[:3] {
		a := simulator.DeliveryAttempt{At: clk.Now(), StatusCode: 200, LatencyMs: 3}
		if i == 2 {
			a.StatusCode, a.ResponseBodyHead = 500, "oops"
		}
		_, err := svc.RecordAttempt(tn.ID, ev.ID, a)
		require.NoError(t, err)
	}
}

// singleFileManifestOf lists the ids of every record of the tenants tids
// from the keys of the single-file layout.
func singleFileManifestOf(t *testing.T, db *store.DB, tids []string) singleFileManifest {
	m := singleFileManifest{
		Tenants: tids, Sessions: map[string][]string{}, Instruments: map[string][]string{}, Customers: map[string][]string{},
		Payments: map[string][]string{}, IdempotencyKeys: map[string][]string{}, Attempts: map[string][]string{},
		Events: map[string][]string{}, Disputes: map[string][]string{}, Jobs: map[string][]string{},
	}
	unhex := func(s string) string {
		b, err := hex.DecodeString(s)
		require.NoError(t, err)
		return string(b)
	}
	for _, tid := range tids {
		require.NoError(t, db.TenantRecords(tid, func(k, _ string) bool {
			parts := strings.Split(k, ":")
			last := parts[len(parts)-1]
			switch {
			case parts[0] == "ctok":
				m.ClientTokens = append(m.ClientTokens, strings.TrimPrefix(k, "ctok:"))
			case parts[0] == "ch3ds":
				m.ChallengeTokens = append(m.ChallengeTokens, strings.TrimPrefix(k, "ch3ds:"))
			case parts[0] != "t":
			case parts[2] == "cs":
				m.Sessions[tid] = append(m.Sessions[tid], last)
			case parts[2] == "pi":
				m.Instruments[tid] = append(m.Instruments[tid], last)
			case parts[2] == "cust":
				if c := unhex(parts[3]); !slices.Contains(m.Customers[tid], c) {
					m.Customers[tid] = append(m.Customers[tid], c)
				}
			case parts[2] == "pay":
				m.Payments[tid] = append(m.Payments[tid], last)
			case parts[2] == "idem":
				m.IdempotencyKeys[tid] = append(m.IdempotencyKeys[tid], unhex(last))
			case parts[2] == "att":
				m.Attempts[tid] = append(m.Attempts[tid], last)
			case parts[2] == "evt":
				m.Events[tid] = append(m.Events[tid], last)
			case parts[2] == "dsp":
				m.Disputes[tid] = append(m.Disputes[tid], last)
			case parts[2] == "job":
				m.Jobs[tid] = append(m.Jobs[tid], last)
			}
			return true
		}))
	}
	m.ClientTokens = append(m.ClientTokens, "cst_unknown")
	m.ChallengeTokens = append(m.ChallengeTokens, "ch_unknown")
	return m
}
