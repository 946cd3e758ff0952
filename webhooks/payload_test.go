package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/webhooks"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var epoch = time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)

// env is the real service over a real in-memory store, rendering bodies
// with webhooks.Renderer; no dispatcher runs unless a test starts one.
type env struct {
	svc *service.Service
	clk *clock.Manual
	t   *simulator.Tenant
}

func newEnv(tb testing.TB, proc simulator.Processor) *env {
	tb.Helper()
	return newEnvConfig(tb, proc, service.Config{})
}

// newDispatchedEnv is newEnv whose service has its dispatcher (made with
// opt, not running) and cfg's settings.
func newDispatchedEnv(tb testing.TB, proc simulator.Processor, opt webhooks.Options, cfg service.Config) (*env, *webhooks.Dispatcher) {
	tb.Helper()
	var d *webhooks.Dispatcher
	cfg.Webhooks = webhooks.Attach(&d, opt)
	return newEnvConfig(tb, proc, cfg), d
}

func newEnvConfig(tb testing.TB, proc simulator.Processor, cfg service.Config) *env {
	tb.Helper()
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(tb, err)
	if proc == nil {
		proc = processors.NewFake(nil, nil)
	}
	clk := clock.NewManual(epoch)
	cfg.Renderer = webhooks.Renderer{}
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, proc, nil, cfg)
	t, err := svc.EnsureTenant(service.TenantSpec{
		ID: "default", SigningSecret: "secret", APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}},
	})
	require.NoError(tb, err)
	return &env{svc: svc, clk: clk, t: t}
}

func i64(v int64) *int64 { return &v }

// pay makes a payment with a customer (e-mail, billing address) and card.
func (e *env) pay(tb testing.TB, amount int64, card string) *simulator.Payment {
	tb.Helper()
	cs, err := e.svc.CreateSession(e.t, simulator.SessionData{
		OrderID: "order-1", CurrencyCode: "EUR", Amount: i64(amount), CustomerID: "cust-1",
		Metadata: map[string]any{"cart": "c-42"},
		Customer: &simulator.Customer{EmailAddress: "jane@example.com", FirstName: "Jane", LastName: "Doe",
			BillingAddress: &simulator.Address{AddressLine1: "1 Main St", City: "Lisbon", CountryCode: "PT", PostalCode: "1000-001"}},
	}, simulator.ApprovalAuto)
	require.NoError(tb, err)
	tk, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{
		Number: card, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane Doe",
	})
	require.NoError(tb, err)
	p, err := e.svc.CreatePayment(context.Background(), e.t, service.PaymentRequest{Token: tk.Instrument.Token})
	require.NoError(tb, err)
	return p
}

// events lists every event of the tenant with its body, oldest first.
func (e *env) events(tb testing.TB) []*simulator.Event {
	tb.Helper()
	evs, err := e.svc.Events(e.t, simulator.EventQuery{Limit: 1000})
	require.NoError(tb, err)
	out := make([]*simulator.Event, len(evs))
	for i, ev := range evs {
		out[len(evs)-1-i], err = e.svc.Event(e.t, ev.ID)
		require.NoError(tb, err)
	}
	return out
}

// goldenBodies makes one event of every kind through the real service and
// answers their bodies, as stored and read back, signed at epoch, by golden
// name.
func goldenBodies(tb testing.TB) map[string][]byte {
	tb.Helper()
	return goldenBodiesOf(tb, "")
}

// goldenBodiesOf is goldenBodies with the tenant's webhook version set to v
// first ("": left as it is, the default).
func goldenBodiesOf(tb testing.TB, v simulator.APIVersion) map[string][]byte {
	tb.Helper()
	e := newEnv(tb, nil)
	if v != "" {
		_, err := e.svc.SetWebhookEndpoint(e.t, "http://receiver.test/hook", v)
		require.NoError(tb, err)
	}
	ctx := context.Background()
	p := e.pay(tb, 1000, "4111111111111111")
	e.clk.Advance(time.Minute)
	_, err := e.svc.CapturePayment(ctx, e.t, p.ID, service.CaptureRequest{})
	require.NoError(tb, err)
	e.clk.Advance(time.Minute)
	_, err = e.svc.RefundPayment(ctx, e.t, p.ID, service.RefundRequest{Amount: i64(300), Reason: "Item returned."})
	require.NoError(tb, err)
	d, err := e.svc.OpenDispute(context.Background(), e.t, p.ID, "FRAUDULENT", i64(700))
	require.NoError(tb, err)
	e.clk.Advance(time.Hour)
	_, err = e.svc.SetDisputeStatus(context.Background(), e.t, d.ID, "WON", "")
	require.NoError(tb, err)
	e.pay(tb, 1000, "4000000000000002") // declined

	out := map[string][]byte{}
	names := map[string]string{}
	for _, ev := range e.events(tb) {
		name := ""
		switch ev.Type {
		case simulator.EventPaymentStatus:
			name = "payment_status_" + string(ev.Payment.Status)
		case simulator.EventPaymentRefund:
			name = "payment_refund"
		case simulator.EventDisputeOpened:
			name = "dispute_opened"
		case simulator.EventDisputeStatus:
			name = "dispute_status"
		}
		if _, dup := names[name]; dup {
			continue
		}
		names[name] = ev.ID
		body, err := webhooks.Renderer{}.Sent(ev, simulator.DeliveryAttempt{SignedAt: strconv.FormatInt(epoch.Unix(), 10)})
		require.NoError(tb, err)
		out[name] = body
	}
	return out
}

// goldenNames are the golden bodies, one per event type and payment status.
var goldenNames = []string{
	"payment_status_PENDING", "payment_status_AUTHORIZED", "payment_status_SETTLED", "payment_status_DECLINED",
	"payment_refund", "dispute_opened", "dispute_status",
}

// goldenDir is where the goldens of version v live: testdata/ for the
// current version, testdata/v2.x/ for the older ones.
func goldenDir(v simulator.APIVersion) string {
	if v == simulator.CurrentAPIVersion {
		return "testdata"
	}
	return filepath.Join("testdata", "v"+string(v))
}

// TestPayloadGoldens pins the body of every event type in every webhook
// version (run with -update to rewrite).
func TestPayloadGoldens(t *testing.T) {
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) { checkGoldens(t, v) })
	}
}

func checkGoldens(t *testing.T, v simulator.APIVersion) {
	bodies := goldenBodiesOf(t, v)
	want := goldenNames
	require.Len(t, bodies, len(want))
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			body, ok := bodies[name]
			require.True(t, ok)
			var pretty bytes.Buffer
			require.NoError(t, json.Indent(&pretty, body, "", "  "))
			pretty.WriteByte('\n')
			path := filepath.Join(goldenDir(v), name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
				return
			}
			golden, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update")
			assert.Equal(t, string(golden), pretty.String())
		})
	}
}

// The webhook body uses the webhook's field names, not the payment API's.
func TestPaymentBodyFieldNames(t *testing.T) {
	bodies := goldenBodies(t)
	var b map[string]any
	require.NoError(t, json.Unmarshal(bodies["payment_status_AUTHORIZED"], &b))
	assert.Equal(t, "PAYMENT.STATUS", b["eventType"])
	assert.Equal(t, "2.4", b["version"])
	assert.Equal(t, "1795332600", b["signedAt"])
	p := b["payment"].(map[string]any)
	assert.NotContains(t, p, "processorData")
	assert.Equal(t, "jane@example.com", p["customer"].(map[string]any)["emailAddress"])
	tx := p["transactions"].([]any)[0].(map[string]any)
	assert.Equal(t, "SALE", tx["transactionType"])
	assert.NotContains(t, tx, "type")
	assert.NotEmpty(t, tx["authorizationCode"])
	assert.NotEmpty(t, tx["events"])
	var d map[string]any
	require.NoError(t, json.Unmarshal(bodies["payment_status_DECLINED"], &d))
	dtx := d["payment"].(map[string]any)["transactions"].([]any)[0].(map[string]any)
	assert.NotNil(t, dtx["processorStatusReason"])
	var r map[string]any
	require.NoError(t, json.Unmarshal(bodies["payment_refund"], &r))
	txs := r["payment"].(map[string]any)["transactions"].([]any)
	refund := txs[len(txs)-1].(map[string]any)
	assert.Equal(t, "REFUND", refund["transactionType"])
	assert.Equal(t, "Item returned.", refund["reason"])
}

func TestSignVerify(t *testing.T) {
	body := []byte(`{"eventType":"PAYMENT.STATUS"}`)
	sig := webhooks.Sign("s3cret", body)
	// base64(HMAC-SHA256("s3cret", body)) computed independently (openssl dgst -sha256 -hmac s3cret -binary | base64).
	assert.Equal(t, "z0tt7imv3alWAbrHzDSY0uz4IzmBSPI6KvQ+ZiIy0bo=", sig)
	for _, tc := range []struct {
		name, secret, sig string
		body              []byte
		want              error
	}{
		{"valid", "s3cret", sig, body, nil},
		{"other secret", "other", sig, body, webhooks.ErrSignatureMismatch},
		{"changed body", "s3cret", sig, append([]byte(" "), body...), webhooks.ErrSignatureMismatch},
		{"not base64", "s3cret", "%%%", body, webhooks.ErrMalformed},
		{"line break inside (the base64 decoder skips it)", "s3cret", sig[:20] + "\n" + sig[20:], body, webhooks.ErrSignatureMismatch},
		{"trailing CR", "s3cret", sig + "\r", body, webhooks.ErrSignatureMismatch},
		{"non-zero padding bits (same bytes when decoded loosely)", "s3cret", "z0tt7imv3alWAbrHzDSY0uz4IzmBSPI6KvQ+ZiIy0bp=", body, webhooks.ErrMalformed},
		{"empty", "s3cret", "", body, webhooks.ErrNoSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := webhooks.Verify(tc.secret, tc.body, tc.sig)
			if tc.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tc.want)
			}
		})
	}
}

// The encoding contract of every body, beyond the goldens: strings are
// written as they are (no HTML escaping: a receiver that re-serialises the
// body to check its signature gets the same bytes), metadata numbers keep
// their digits, signedAt comes third and is empty until an attempt signs
// it, and nothing follows the closing brace.
func TestBodyEncoding(t *testing.T) {
	p := &simulator.Payment{ID: "p1", TenantID: "t1", Status: simulator.StatusAuthorized, OrderID: "<o&1>", CurrencyCode: "EUR", Amount: 1,
		Metadata: map[string]any{"n": json.Number("12345678901234567890")}, Customer: &simulator.Customer{FirstName: "Jane <&> \u2028"}}
	ev := &simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, CreatedAt: epoch, Payment: p}
	body, err := webhooks.Renderer{}.Body(ev)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(body, []byte(`{"eventType":"PAYMENT.STATUS","date":"2026-11-22T07:30:00.000000Z","signedAt":"","notificationConfig":{`)), "%s", body)
	assert.Contains(t, string(body), `"orderId":"<o&1>"`)
	assert.Contains(t, string(body), `"firstName":"Jane <&> \u2028"`)
	assert.Contains(t, string(body), `"metadata":{"n":12345678901234567890}`)
	assert.Contains(t, string(body), `"first6Digits":null`)
	assert.Contains(t, string(body), `"transactions":[]`)
	assert.Equal(t, byte('}'), body[len(body)-1])

	sent, err := webhooks.Renderer{}.Sent(ev, simulator.DeliveryAttempt{SignedAt: "1795332600"})
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(string(body), `"signedAt":""`, `"signedAt":"1795332600"`, 1), string(sent))
	sent, err = webhooks.Renderer{}.Sent(ev, simulator.DeliveryAttempt{Error: simulator.ErrNoEndpoint})
	require.NoError(t, err)
	assert.Nil(t, sent, "an attempt that sent nothing")

	_, err = webhooks.Renderer{}.Body(&simulator.Event{ID: "e2", Type: simulator.EventPaymentStatus})
	assert.Error(t, err, "an event with neither its inputs nor a stored body")
}
