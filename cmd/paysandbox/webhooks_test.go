package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// delivery is one request a receiver got.
type delivery struct {
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// receiver is a real local webhook handler whose answer tests change.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer http.HandlerFunc
	extra  int // requests to paths other than "/" (redirect targets)
}

func newReceiver(t *testing.T, answer http.HandlerFunc) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 0)
		if r.Body != nil {
			buf := make([]byte, 1<<16)
			for {
				n, err := r.Body.Read(buf)
				body = append(body, buf[:n]...)
				if err != nil {
					break
				}
			}
		}
		rc.mu.Lock()
		if r.URL.Path != "/" {
			rc.extra++
			rc.mu.Unlock()
			w.WriteHeader(200)
			return
		}
		d := delivery{Header: r.Header.Clone(), Body: body}
		_ = json.Unmarshal(body, &d.JSON)
		rc.got = append(rc.got, d)
		answer := rc.answer
		rc.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setAnswer(f http.HandlerFunc) { rc.mu.Lock(); rc.answer = f; rc.mu.Unlock() }

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func answer(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"ok":` + strconv.Itoa(code) + `}`))
	}
}

// paymentStatus reads payment.status of a PAYMENT.* body.
func paymentStatus(d delivery) string {
	p, _ := d.JSON["payment"].(map[string]any)
	s, _ := p["status"].(string)
	return s
}

func (a *testApp) setEndpoint(url string) {
	a.t.Helper()
	a.must(200, "PUT", "/_sandbox/webhooks/endpoint", map[string]any{"url": url})
}

func (a *testApp) advance(d string) *resp {
	a.t.Helper()
	return a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": d})
}

// events lists the events of a payment, oldest first.
func (a *testApp) events(paymentID string) []map[string]any {
	a.t.Helper()
	r := a.must(200, "GET", "/_sandbox/webhooks/events?paymentId="+paymentID, nil)
	var out []map[string]any
	for _, e := range r.JSON["data"].([]any) {
		out = append([]map[string]any{e.(map[string]any)}, out...)
	}
	return out
}

func TestWebhookDeliveredSignedInOrder(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	assert.Equal(t, rc.URL, a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).Str("url"))
	pid := a.pay(1000, "4111111111111111").Str("id")

	w := a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.STATUS&status=DELIVERED&timeout=10s", nil)
	assert.Equal(t, "DELIVERED", w.Str("status"))
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil) // whatever is still pending, now
	got := rc.deliveries()
	require.Len(t, got, 2, "PENDING then AUTHORIZED")
	assert.Equal(t, []string{"PENDING", "AUTHORIZED"}, []string{paymentStatus(got[0]), paymentStatus(got[1])})

	evs := a.events(pid)
	require.Len(t, evs, 2)
	for i, d := range got {
		assert.Equal(t, "application/json", d.Header.Get("Content-Type"))
		assert.Equal(t, evs[i]["id"], d.Header.Get("X-Event-Id"))
		assert.NoError(t, webhooks.Verify(simulator.DefaultSigningSecret, d.Body, d.Header.Get("X-Signature-Primary")))
		_, secondary := d.Header[http.CanonicalHeaderKey("X-Signature-Secondary")]
		assert.False(t, secondary, "no X-Signature-Secondary without a rotation")
		assert.Equal(t, strconv.FormatInt(testEpoch.Unix(), 10), d.JSON["signedAt"])
		assert.Equal(t, "2.4", d.JSON["version"])
		assert.Equal(t, "PAYMENT.STATUS", d.JSON["eventType"])
		p := d.JSON["payment"].(map[string]any)
		assert.NotContains(t, p, "processorData")

		assert.Equal(t, "DELIVERED", evs[i]["status"])
		att := evs[i]["attempts"].([]any)
		require.Len(t, att, 1)
		assert.Equal(t, 200.0, att[0].(map[string]any)["statusCode"])
		one := a.must(200, "GET", "/_sandbox/webhooks/events/"+evs[i]["id"].(string), nil)
		var sent any
		require.NoError(t, json.Unmarshal(d.Body, &sent))
		assert.Equal(t, sent, one.JSON["body"], "the event shows the exact body sent")
	}
	tx := got[1].JSON["payment"].(map[string]any)["transactions"].([]any)[0].(map[string]any)
	assert.Equal(t, "SALE", tx["transactionType"])
	assert.NotEmpty(t, tx["authorizationCode"], "STRIPE gives authorization codes")
	assert.NotEmpty(t, tx["events"])
}

func TestWebhookFailuresRetryThenExhaust(t *testing.T) {
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return "http://" + addr + "/"
	}
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	cases := []struct {
		name    string
		answer  http.HandlerFunc
		url     func(rc *receiver) string
		code    float64
		errPart string
	}{
		{"500", answer(500), nil, 500, "500"},
		{"302 is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, nil, 302, "redirects are not followed"},
		{"hang past the timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		}, nil, 0, "timeout"},
		{"connection refused", answer(200), func(*receiver) string { return refused() }, 0, "refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.WebhookTimeout = 200 * time.Millisecond
			a := startApp(t, cfg)
			rc := newReceiver(t, tc.answer)
			url := rc.URL
			if tc.url != nil {
				url = tc.url(rc)
			}
			a.setEndpoint(url)
			pid := a.pay(1000, "4111111111111111").Str("id")
			a.advance("1ns") // the first attempt has run when this answers
			for i, d := range []string{"10s", "1m", "5m", "10m", "15m"} {
				ev := a.events(pid)[0]
				require.Equal(t, "PENDING", ev["status"], "after %d attempts", i+1)
				require.Len(t, ev["attempts"], i+1)
				last := ev["attempts"].([]any)[i].(map[string]any)
				assert.Equal(t, tc.code, last["statusCode"])
				assert.Contains(t, last["error"], tc.errPart)
				fired := a.advance(d).JSON["fired"].([]any)
				require.NotEmpty(t, fired, "advancing %s fires the retry", d)
				f := fired[0].(map[string]any)
				assert.Equal(t, "webhook", f["kind"])
				assert.Equal(t, ev["id"], f["eventId"])
				assert.Equal(t, pid, f["paymentId"])
			}
			ev := a.events(pid)[0]
			assert.Equal(t, "EXHAUSTED", ev["status"])
			att := ev["attempts"].([]any)
			require.Len(t, att, 6, "six attempts in all")
			want := []string{"07:30:00", "07:30:10", "07:31:10", "07:36:10", "07:46:10", "08:01:10"}
			for i, x := range att {
				assert.Equal(t, "2026-11-22T"+want[i]+".000000Z", x.(map[string]any)["at"], "attempt %d counts from the previous failure", i+1)
			}
			assert.Zero(t, rc.extra, "redirects are not followed")
		})
	}
}

func TestWebhookReplay(t *testing.T) {
	cfg := testConfig()
	a := startApp(t, cfg)
	rc := newReceiver(t, answer(500))
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, "4111111111111111").Str("id")
	a.advance("1ns")
	for _, d := range []string{"10s", "1m", "5m", "10m", "15m"} {
		a.advance(d)
	}
	ev := a.events(pid)[0]
	require.Equal(t, "EXHAUSTED", ev["status"])
	id := ev["id"].(string)

	r := a.must(200, "POST", "/_sandbox/webhooks/events/"+id+"/replay", nil)
	assert.Equal(t, 500.0, r.JSON["statusCode"])
	assert.Equal(t, true, r.JSON["replay"])
	one := a.must(200, "GET", "/_sandbox/webhooks/events/"+id, nil)
	assert.Equal(t, "EXHAUSTED", one.Str("status"), "a failed replay schedules nothing")
	assert.NotContains(t, one.JSON, "nextAttemptAt")

	rc.setAnswer(answer(204))
	a.advance("1m")
	r = a.must(200, "POST", "/_sandbox/webhooks/events/"+id+"/replay", nil)
	assert.Equal(t, 204.0, r.JSON["statusCode"])
	assert.Equal(t, "DELIVERED", a.must(200, "GET", "/_sandbox/webhooks/events/"+id, nil).Str("status"))
	var last delivery
	for _, d := range rc.deliveries() {
		if d.Header.Get("X-Event-Id") == id {
			last = d
		}
	}
	assert.Equal(t, strconv.FormatInt(testEpoch.Add(32*time.Minute+10*time.Second).Unix(), 10), last.JSON["signedAt"], "a new signedAt")
	assert.NoError(t, webhooks.Verify(simulator.DefaultSigningSecret, last.Body, last.Header.Get("X-Signature-Primary")))

	assert.Equal(t, 404, a.req("POST", "/_sandbox/webhooks/events/nope/replay", nil).Status)
}

func TestWebhookNoEndpoint(t *testing.T) {
	a := newTestApp(t)
	b := a.as(a.newTenant(nil))
	pid := b.pay(1000, "4111111111111111").Str("id")
	w := b.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&status=EXHAUSTED&timeout=10s", nil)
	assert.Equal(t, "no endpoint", w.JSON["attempts"].([]any)[0].(map[string]any)["error"])
	b.advance("1ns")
	for _, ev := range b.events(pid) {
		assert.Equal(t, "EXHAUSTED", ev["status"])
	}

	rc := newReceiver(t, answer(200))
	b.setEndpoint(rc.URL)
	b.advance("1h")
	b.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	assert.Empty(t, rc.deliveries(), "not sent retroactively")
	id := b.events(pid)[0]["id"].(string)
	b.must(200, "POST", "/_sandbox/webhooks/events/"+id+"/replay", nil)
	require.Len(t, rc.deliveries(), 1, "replayable once an endpoint is set")
	assert.Equal(t, "DELIVERED", b.must(200, "GET", "/_sandbox/webhooks/events/"+id, nil).Str("status"))
}

func TestWebhookSecretRotation(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	secret := a.must(200, "POST", "/_sandbox/webhooks/rotate-secret", nil).Str("signingSecret")
	require.NotEmpty(t, secret)
	require.NotEqual(t, simulator.DefaultSigningSecret, secret)
	pid := a.pay(1000, "4111111111111111").Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	a.advance("1ns")
	got := rc.deliveries()
	require.NotEmpty(t, got)
	assert.NoError(t, webhooks.Verify(secret, got[0].Body, got[0].Header.Get("X-Signature-Primary")))
	assert.NoError(t, webhooks.Verify(simulator.DefaultSigningSecret, got[0].Body, got[0].Header.Get("X-Signature-Secondary")))
	assert.ErrorIs(t, webhooks.Verify(simulator.DefaultSigningSecret, got[0].Body, got[0].Header.Get("X-Signature-Primary")), webhooks.ErrSignatureMismatch)

	a.advance("24h")
	a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{}, "X-API-VERSION: 2.4")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	a.advance("1ns")
	got = rc.deliveries()
	last := got[len(got)-1]
	require.Equal(t, "SETTLED", paymentStatus(last))
	assert.Empty(t, last.Header.Get("X-Signature-Secondary"), "absent after 24h of tenant clock")
	assert.NoError(t, webhooks.Verify(secret, last.Body, last.Header.Get("X-Signature-Primary")))
}

func TestWebhookDisputes(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, "4111111111111111").Str("id")
	did := a.must(200, "POST", "/_sandbox/payments/"+pid+"/dispute", map[string]any{"reason": "PRODUCT_NOT_RECEIVED", "amount": 600}).Str("disputeId")
	a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=DISPUTE.OPENED&timeout=10s", nil)

	l := a.must(200, "GET", "/_sandbox/disputes?paymentId="+pid, nil)
	require.Len(t, l.JSON["data"], 1)
	d := l.JSON["data"].([]any)[0].(map[string]any)
	assert.Equal(t, did, d["disputeId"])
	assert.Equal(t, "OPEN", d["status"])

	r := a.req("POST", "/_sandbox/disputes/"+did+"/status", map[string]any{"status": "BOGUS"})
	assert.Equal(t, 422, r.Status)
	assert.Equal(t, 404, a.req("POST", "/_sandbox/disputes/nope/status", map[string]any{"status": "WON"}).Status)
	s := a.must(200, "POST", "/_sandbox/disputes/"+did+"/status", map[string]any{"status": "CHALLENGED", "type": "PREARBITRATION"})
	assert.Equal(t, "CHALLENGED", s.Str("status"))
	a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=DISPUTE.STATUS&timeout=10s", nil)

	var opened, status map[string]any
	for _, x := range rc.deliveries() {
		switch x.JSON["eventType"] {
		case "DISPUTE.OPENED":
			opened = x.JSON
		case "DISPUTE.STATUS":
			status = x.JSON
		}
	}
	require.NotNil(t, opened)
	assert.Equal(t, "default", opened["platformAccountId"])
	assert.Equal(t, pid, opened["paymentId"])
	assert.Equal(t, "order-1", opened["orderId"])
	assert.Equal(t, did, opened["processorDisputeId"])
	cb := opened["raw_processor_callback"].(map[string]any)
	assert.Equal(t, "PRODUCT_NOT_RECEIVED", cb["reason"])
	assert.Equal(t, 600.0, cb["amount"])
	require.NotNil(t, status)
	assert.Equal(t, "CHALLENGED", status["status"])
	assert.Equal(t, "PREARBITRATION", status["type"])
	assert.Equal(t, "default", status["primerAccountId"])
	assert.Equal(t, 600.0, status["amount"])
}

func TestWebhookEndpointsValidate(t *testing.T) {
	a := newTestApp(t)
	for _, body := range []any{map[string]any{"url": "ftp://x.example"}, map[string]any{"url": "/relative"}, map[string]any{}, map[string]any{"url": "http://x", "extra": 1}} {
		r := a.req("PUT", "/_sandbox/webhooks/endpoint", body)
		assert.Equal(t, 422, r.Status, "%v: %s", body, r.Body)
	}
	assert.Nil(t, a.must(200, "GET", "/_sandbox/webhooks/endpoint", nil).JSON["url"])
	for _, q := range []string{"type=BOGUS", "status=NOPE", "limit=0", "limit=x"} {
		assert.Equal(t, 422, a.req("GET", "/_sandbox/webhooks/events?"+q, nil).Status, q)
	}
	r := a.req("GET", "/_sandbox/webhooks/wait?paymentId=none&timeout=10ms", nil)
	assert.Equal(t, 408, r.Status)
	assert.Equal(t, "WaitTimeout", r.ErrorID())
	assert.Equal(t, 422, a.req("GET", "/_sandbox/webhooks/wait?timeout=10ms", nil).Status, "paymentId is required")
	assert.Equal(t, 404, a.req("GET", "/_sandbox/webhooks/events/nope", nil).Status)
	assert.Equal(t, 422, a.req("PUT", "/_sandbox/webhooks/chaos", map[string]any{"duplicate": 2}).Status)
	assert.Equal(t, 422, a.req("PUT", "/_sandbox/webhooks/chaos", map[string]any{"delay": "soon"}).Status)
}

func TestWebhookURLFromTenantCreation(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	b := a.as(a.newTenant(map[string]any{"webhookUrl": rc.URL}))
	pid := b.pay(1000, "4111111111111111").Str("id")
	b.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&timeout=10s", nil)
	assert.NotEmpty(t, rc.deliveries())
}

func TestWebhookURLFromConfig(t *testing.T) {
	rc := newReceiver(t, answer(200))
	cfg := testConfig()
	cfg.WebhookURL = rc.URL
	cfg.Tenants = []TenantConfig{{ID: "shop", APIKeys: []APIKeyConfig{{Key: "shop-key"}}, WebhookURL: rc.URL}}
	a := startApp(t, cfg)
	for _, b := range []*testApp{a, a.as("shop-key")} {
		pid := b.pay(1000, "4111111111111111").Str("id")
		b.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&timeout=10s", nil)
	}
	assert.GreaterOrEqual(t, len(rc.deliveries()), 2)
}

func TestWebhookChaos(t *testing.T) {
	a := newTestApp(t)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)

	a.must(200, "PUT", "/_sandbox/webhooks/chaos", map[string]any{"reorder": true, "delay": "1m", "seed": 7})
	pid := a.pay(1000, "4111111111111111").Str("id")
	a.advance("1ns")
	assert.Empty(t, rc.deliveries(), "held by the chaos delay")
	a.advance("1m")
	got := rc.deliveries()
	require.Len(t, got, 2)
	assert.Equal(t, []string{"AUTHORIZED", "PENDING"}, []string{paymentStatus(got[0]), paymentStatus(got[1])}, "released out of order")
	evs := a.events(pid)
	assert.Equal(t, "reorder+delay", evs[1]["attempts"].([]any)[0].(map[string]any)["chaos"], "chaos-made attempts are marked")

	a.must(200, "PUT", "/_sandbox/webhooks/chaos", map[string]any{"duplicate": 1, "seed": 1})
	pid = a.pay(1000, "4111111111111111").Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	a.advance("1ns")
	for _, ev := range a.events(pid) {
		att := ev["attempts"].([]any)
		require.Len(t, att, 2, "sent twice")
		assert.Equal(t, "duplicate", att[1].(map[string]any)["chaos"])
	}

	off := a.must(200, "PUT", "/_sandbox/webhooks/chaos", map[string]any{})
	assert.Equal(t, false, off.JSON["reorder"])
	pid = a.pay(1000, "4111111111111111").Str("id")
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	a.advance("1ns")
	for _, ev := range a.events(pid) {
		assert.Len(t, ev["attempts"], 1)
	}
}

// A restart resumes pending deliveries: the retry stored before the restart
// runs after it.
func TestWebhookRestartResumesPending(t *testing.T) {
	cfg := testConfig()
	cfg.DB = t.TempDir() + "/wh.db"
	rc := newReceiver(t, answer(500))
	a := startApp(t, cfg)
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, "4111111111111111").Str("id")
	a.advance("1ns")
	require.Equal(t, "PENDING", a.events(pid)[0]["status"])
	require.NoError(t, a.Close())

	rc.setAnswer(answer(200))
	b := startApp(t, cfg)
	b.advance("10s")
	b.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&timeout=10s", nil)
	b.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	for _, ev := range b.events(pid) {
		assert.Equal(t, "DELIVERED", ev["status"])
	}
}

// Retention: delivered and exhausted events beyond the count bound go;
// pending ones stay.
func TestWebhookRetention(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookRetentionCount = 3
	a := startAppWith(t, cfg, appHooks{before: func(app *App) { app.Webhooks.PruneEvery = 0 }})
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	for range 3 {
		a.pay(1000, "4111111111111111")
	}
	a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
	rc.setAnswer(answer(500))
	pid := a.pay(1000, "4111111111111111").Str("id")
	a.advance("1ns") // runs what is due, then applies the bound
	all := a.must(200, "GET", "/_sandbox/webhooks/events", nil).JSON["data"].([]any)
	var delivered, pending int
	for _, e := range all {
		switch e.(map[string]any)["status"] {
		case "DELIVERED":
			delivered++
		case "PENDING":
			pending++
			assert.Equal(t, pid, e.(map[string]any)["paymentId"])
		}
	}
	assert.Equal(t, 3, delivered, "kept up to the count bound")
	assert.Equal(t, 2, pending, "pending events are never pruned")
}

// The clock advance answers what it ran: scheduled jobs (with their
// payment or attempt) in time order, then webhook attempts.
func TestClockAdvanceFired(t *testing.T) {
	a := newTestApp(t)
	att := freshAttempt(a, "4111111111111111")
	r := a.advance("16m")
	assert.Equal(t, "2026-11-22T07:46:00.000000Z", r.Str("now"))
	fired := r.JSON["fired"].([]any)
	require.Len(t, fired, 1, "%s", r.Body)
	f := fired[0].(map[string]any)
	assert.Equal(t, "expire-attempt", f["kind"])
	assert.Equal(t, att, f["attemptId"])
	assert.Equal(t, "2026-11-22T07:45:00.000000Z", f["at"])

	r = a.advance("1h")
	assert.Equal(t, []any{}, r.JSON["fired"], "nothing due: an empty list")
}

// TestWebhookListPaymentStatus: each event says the payment status it
// announces, in the listing and the detail (stored with the event), and
// `webhooks list` shows it in its last column.
func TestWebhookListPaymentStatus(t *testing.T) {
	a := newTestApp(t)
	a.useNewTenant()
	pid := a.pay(1000, numOK).Str("id")
	evs := a.events(pid) // oldest first
	require.Len(t, evs, 2)
	assert.Equal(t, []any{"PENDING", "AUTHORIZED"}, []any{evs[0]["paymentStatus"], evs[1]["paymentStatus"]})
	one := a.must(200, "GET", "/_sandbox/webhooks/events/"+evs[1]["id"].(string), nil)
	assert.Equal(t, "AUTHORIZED", one.Str("paymentStatus"))

	code, stdout, stderr := cliRun(t, a, nil, "webhooks", "list", "--payment", pid)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 3)
	assert.Regexp(t, `^ID\s+EVENTTYPE\s+PAYMENTID\s+STATUS\s+CREATEDAT\s+PAYMENTSTATUS$`, lines[0], "the column is added at the end")
	assert.Regexp(t, `\sAUTHORIZED$`, lines[1])
	assert.Regexp(t, `\sPENDING$`, lines[2])
}
