package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

const (
	cardOK        = "4111111111111111"
	cardDecline   = "4000000000000002"
	cardChallenge = "4916994064252017"
)

func TestRootRedirectsBrowsers(t *testing.T) {
	e := newEnv(t, Options{})
	e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cases := []struct {
		name, accept string
		status       int
		location     string
	}{
		{"browser", "text/html,application/xhtml+xml", http.StatusFound, Prefix + "/"},
		{"api client", "application/json", http.StatusOK, ""},
		{"no accept", "", http.StatusOK, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/", nil)
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			p := e.do(req)
			assert.Equal(t, tc.status, p.Status)
			assert.Equal(t, tc.location, p.Header.Get("Location"))
		})
	}
}

func TestSignIn(t *testing.T) {
	cases := []struct {
		name    string
		key     string
		status  int
		landing string
		body    string
	}{
		{"valid key", testKey, http.StatusOK, Prefix + "/payments", "Tenant <strong data-testid=\"tenant\">acme</strong>"},
		{"unknown key", "nope", http.StatusUnauthorized, Prefix + "/login", "That API key is not valid"},
		{"empty key", "", http.StatusUnauthorized, Prefix + "/login", "That API key is not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			p := e.signIn(tc.key)
			assert.Equal(t, tc.status, p.Status)
			assert.Equal(t, tc.landing, p.URL)
			assert.Contains(t, p.Body, tc.body)
		})
	}
	t.Run("cookie is HttpOnly, SameSite=Strict, scoped and expiring", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		p := e.signIn(testKey)
		require.Equal(t, http.StatusSeeOther, p.Status)
		ck := p.Header.Get("Set-Cookie")
		for _, want := range []string{sessionCookie + "=", "Path=" + Prefix, "HttpOnly", "SameSite=Strict", "Max-Age=28800"} {
			assert.Contains(t, ck, want)
		}
		assert.NotContains(t, ck, testKey, "the key never goes into the cookie")
	})
	t.Run("prefill shows the default key only while it signs in", func(t *testing.T) {
		e := newEnv(t, Options{PrefillKey: testKey})
		assert.Contains(t, e.get(Prefix+"/login").Body, `value="`+testKey+`"`)
		e2 := newEnv(t, Options{PrefillKey: "gone-key"})
		assert.NotContains(t, e2.get(Prefix+"/login").Body, "gone-key")
	})
	t.Run("unsigned requests go to sign-in and come back", func(t *testing.T) {
		e := newEnv(t, Options{})
		p := e.get(Prefix + "/clock")
		assert.Equal(t, Prefix+"/login", p.URL)
		assert.Contains(t, p.Body, `name="next" value="/_sandbox/ui/clock"`)
		p = e.post(Prefix+"/login", url.Values{"apiKey": {testKey}, "next": {Prefix + "/clock"}})
		assert.Equal(t, Prefix+"/clock", p.URL)
	})
	t.Run("next never leaves the dashboard", func(t *testing.T) {
		e := newEnv(t, Options{})
		p := e.post(Prefix+"/login", url.Values{"apiKey": {testKey}, "next": {"//evil.example/x"}})
		assert.Equal(t, Prefix+"/payments", p.URL)
	})
	t.Run("session expires on the wall clock, not the tenant clock", func(t *testing.T) {
		e := newEnv(t, Options{SessionTTL: time.Hour})
		e.signIn(testKey)
		_, err := e.svc.AdvanceClock(context.Background(), e.tenant, 48*time.Hour)
		require.NoError(t, err)
		assert.Equal(t, Prefix+"/clock", e.get(Prefix+"/clock").URL, "tenant time does not end a sign-in")
		e.wall.Add(time.Hour)
		assert.Equal(t, Prefix+"/login", e.get(Prefix+"/clock").URL)
	})
	t.Run("a tampered cookie is refused", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.signIn(testKey)
		u, _ := url.Parse(e.srv.URL + Prefix)
		ck := e.client.Jar.Cookies(u)
		require.Len(t, ck, 1)
		payload, sig, _ := strings.Cut(ck[0].Value, ".")
		forged := strings.Replace(payload, "Y", "Z", 1) + "." + sig
		e.client.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: forged, Path: Prefix}})
		assert.Equal(t, Prefix+"/login", e.get(Prefix+"/payments").URL)
	})
	t.Run("sign out ends the session", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.signIn(testKey)
		p := e.post(Prefix+"/logout", url.Values{"csrf": {e.csrf()}})
		assert.Equal(t, Prefix+"/login", p.URL)
		assert.Equal(t, Prefix+"/login", e.get(Prefix+"/payments").URL)
	})
}

func TestCSRF(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	tok := e.csrf()
	cases := []struct {
		name   string
		csrf   string
		origin string
		status int
	}{
		{"token and origin", tok, "", http.StatusOK},
		{"missing token", "", "", http.StatusForbidden},
		{"wrong token", wrongToken(tok), "", http.StatusForbidden},
		{"other origin", tok, "http://evil.example", http.StatusForbidden},
		{"opaque origin", tok, "null", http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+Prefix+"/clock", strings.NewReader(url.Values{"csrf": {tc.csrf}, "duration": {"1m"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", nonEmpty(tc.origin, e.srv.URL))
			p := e.do(req)
			assert.Equal(t, tc.status, p.Status, p.Body)
		})
	}
}

func TestPaymentsList(t *testing.T) {
	e := newEnv(t, Options{})
	other, err := e.svc.Tenant("other")
	require.NoError(t, err)
	e.pay(other, 777, cardOK, "other-order", "other-cust")
	var ids []string
	for i := 0; i < 30; i++ {
		e.clock.Advance(time.Second)
		num := cardOK
		if i%3 == 0 {
			num = cardDecline
		}
		ids = append(ids, e.pay(e.tenant, int64(100*(i+1)), num, fmt.Sprintf("order-%02d", i), fmt.Sprintf("cust-%d", i%2)).ID)
	}
	e.signIn(testKey)
	cases := []struct {
		name      string
		query     string
		wantIDs   []string // in order, when set
		count     int
		notShown  []string
		errorText string
	}{
		{"newest first, one page", "", []string{ids[29], ids[28]}, pageSize, []string{ids[4]}, ""},
		{"status", "status=DECLINED", []string{ids[27], ids[24]}, 10, []string{ids[29]}, ""},
		{"order id", "orderId=order-07", []string{ids[7]}, 1, nil, ""},
		{"customer", "customerId=cust-1&maxAmount=1000", []string{ids[9], ids[7], ids[5]}, 5, nil, ""},
		{"amount range", "minAmount=500&maxAmount=700", []string{ids[6], ids[5], ids[4]}, 3, nil, ""},
		{"bad amount", "minAmount=abc", nil, 0, nil, "Filters not applied: the minimum amount must be a whole"},
		{"bad status", "status=NOPE", nil, 0, nil, "the status &#34;NOPE&#34; does not exist"},
		{"bad cursor", "cursor=zzz", nil, 0, nil, "the page link is not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := e.get(Prefix + "/payments?" + tc.query)
			require.Equal(t, http.StatusOK, p.Status)
			assert.NotContains(t, p.Body, "other-order", "another tenant's payment never shows")
			if tc.errorText != "" {
				assert.Contains(t, p.Body, tc.errorText)
				return
			}
			assert.Equal(t, tc.count, strings.Count(p.Body, `<tr>
    <td><a href="/_sandbox/ui/payments/`))
			last := -1
			for _, id := range tc.wantIDs {
				i := strings.Index(p.Body, ">"+id+"</a>")
				require.Greater(t, i, last, "%s in order", id)
				last = i
			}
			for _, id := range tc.notShown {
				assert.NotContains(t, p.Body, ">"+id+"</a>")
			}
		})
	}
	t.Run("cursor pages", func(t *testing.T) {
		p := e.get(Prefix + "/payments")
		i := strings.Index(p.Body, `rel="next"`)
		require.Greater(t, i, 0)
		href := p.Body[strings.LastIndex(p.Body[:i], `href="`)+6 : i-2]
		href = strings.ReplaceAll(href, "&amp;", "&")
		p2 := e.get(href)
		assert.Contains(t, p2.Body, ">"+ids[4]+"</a>")
		assert.Contains(t, p2.Body, ">"+ids[0]+"</a>")
		assert.NotContains(t, p2.Body, ">"+ids[5]+"</a>")
		assert.Contains(t, p2.Body, `rel="prev"`)
	})
	t.Run("another tenant's payment page is not found", func(t *testing.T) {
		e2 := newEnv(t, Options{})
		mine := e2.pay(e2.tenant, 500, cardOK, "o", "c")
		e2.signIn("other-key")
		p := e2.get(Prefix + "/payments/" + mine.ID)
		assert.Equal(t, http.StatusNotFound, p.Status)
		assert.Contains(t, p.Body, "PaymentError")
	})
}

func TestPaymentActions(t *testing.T) {
	cases := []struct {
		name   string
		card   string
		key    string
		action string
		form   url.Values
		flash  string
		status simulator.PaymentStatus
	}{
		{"capture partial", cardOK, testKey, "capture", url.Values{"amount": {"400"}, "final": {"no"}}, "Captured. The payment is PARTIALLY_SETTLED.", simulator.StatusPartiallySettled},
		{"capture full", cardOK, testKey, "capture", url.Values{}, "Captured. The payment is SETTLED.", simulator.StatusSettled},
		{"capture too much", cardOK, testKey, "capture", url.Values{"amount": {"5000"}}, "Refused. RequestValidationError", simulator.StatusAuthorized},
		{"capture bad amount", cardOK, testKey, "capture", url.Values{"amount": {"1.5"}}, "whole number of minor units", simulator.StatusAuthorized},
		{"refund not settled", cardOK, testKey, "refund", url.Values{}, "Refused. InvalidPaymentStatus", simulator.StatusAuthorized},
		{"cancel", cardOK, testKey, "cancel", url.Values{"reason": {"changed mind"}}, "Cancelled. The payment is CANCELLED.", simulator.StatusCancelled},
		{"cancel declined", cardDecline, testKey, "cancel", url.Values{}, "Refused. InvalidPaymentStatus", simulator.StatusDeclined},
		{"settle not settling", cardOK, testKey, "settle", url.Values{}, "Refused. InvalidPaymentStatus", simulator.StatusAuthorized},
		{"dispute", cardOK, testKey, "dispute", url.Values{"reason": {"FRAUDULENT"}}, "opened for 1000 (reason FRAUDULENT)", simulator.StatusAuthorized},
		{"dispute declined", cardDecline, testKey, "dispute", url.Values{}, "Refused. InvalidPaymentStatus: A declined payment cannot be disputed", simulator.StatusDeclined},
		{"3ds success", cardChallenge, testKey, "3ds", url.Values{"result": {"AUTH_SUCCESS"}}, "3DS challenge answered. The payment is AUTHORIZED.", simulator.StatusAuthorized},
		{"3ds failure", cardChallenge, testKey, "3ds", url.Values{"result": {"AUTH_FAILED"}}, "3DS challenge answered. The payment is DECLINED.", simulator.StatusDeclined},
		{"capture without scope", cardOK, "test-key-read", "capture", url.Values{}, "Refused. Forbidden: The API key lacks the scope transactions:capture", simulator.StatusAuthorized},
		{"unknown action", cardOK, testKey, "explode", url.Values{}, "has no action", simulator.StatusAuthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			p := e.pay(e.tenant, 1000, tc.card, "o-1", "c-1")
			e.signIn(tc.key)
			tc.form.Set("csrf", e.csrf())
			page := e.post(Prefix+"/payments/"+p.ID+"/"+tc.action, tc.form)
			require.Equal(t, http.StatusOK, page.Status)
			assert.Equal(t, Prefix+"/payments/"+p.ID, page.URL)
			assert.Contains(t, page.Body, tc.flash)
			got, err := e.svc.Payment(e.tenant, p.ID)
			require.NoError(t, err)
			assert.Equal(t, tc.status, got.Status)
			assert.NotContains(t, e.get(Prefix+"/payments/"+p.ID).Body, tc.flash, "the flash shows once")
		})
	}
}

func TestPaymentPage(t *testing.T) {
	hooks := &fakeWebhooks{events: []WebhookEvent{{
		ID: "evt-1", Type: "PAYMENT.STATUS", PaymentID: "pay00001", Status: "DELIVERED",
		CreatedAt: time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC), Body: `{"eventType":"PAYMENT.STATUS"}`,
		Attempts: []WebhookAttempt{{At: time.Date(2026, 11, 22, 7, 30, 1, 0, time.UTC), StatusCode: 204, Latency: 12 * time.Millisecond,
			Headers: map[string]string{"X-Signature-Primary": "c2ln"}, Body: `{"eventType":"PAYMENT.STATUS","exact":true}`}},
	}}}
	journal := &fakeJournal{entries: []JournalEntry{{ID: "req-1", At: time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC), Method: "POST", Path: "/payments", Status: 200, RequestBody: `{"paymentMethodToken":"tok"}`}}}
	scen := &fakeScenarios{explain: Explanation{Rule: "default-authorize", Reasons: []string{"rule decline-cards: card is not 4000000000000002"}}}
	cases := []struct {
		name    string
		opt     Options
		want    []string
		notWant []string
	}{
		{"no sources", Options{}, []string{
			"Webhook deliveries are not configured in this build.", "The request journal is not configured in this build.",
			"Scenario explanations are not configured in this build.", `<li class="current" aria-current="step">AUTHORIZED</li>`,
			`<li class="visited">PENDING</li>`, "Status: AUTHORIZED", "Created: PENDING",
		}, []string{"Webhook PAYMENT.STATUS"}},
		{"with sources", Options{Webhooks: hooks, Journal: journal, Scenarios: scen}, []string{
			"Webhook PAYMENT.STATUS: DELIVERED", "X-Signature-Primary: c2ln", "{&#34;eventType&#34;:&#34;PAYMENT.STATUS&#34;,&#34;exact&#34;:true}",
			"<td>204</td><td>12 ms</td>", "POST /payments → 200", "Matched: <strong>default-authorize</strong>", "rule decline-cards: card is not",
		}, []string{"not configured"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opt)
			p := e.pay(e.tenant, 1000, cardOK, "o-1", "c-1")
			require.Equal(t, "pay00001", p.ID)
			e.signIn(testKey)
			page := e.get(Prefix + "/payments/" + p.ID)
			require.Equal(t, http.StatusOK, page.Status)
			for _, w := range tc.want {
				assert.Contains(t, page.Body, w)
			}
			for _, w := range tc.notWant {
				assert.NotContains(t, page.Body, w)
			}
		})
	}
	t.Run("unknown payment", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.signIn(testKey)
		p := e.get(Prefix + "/payments/nope")
		assert.Equal(t, http.StatusNotFound, p.Status)
		assert.Contains(t, p.Body, "The payment could not be found")
	})
	t.Run("fragment is the live region only", func(t *testing.T) {
		e := newEnv(t, Options{})
		p := e.pay(e.tenant, 1000, cardOK, "o-1", "c-1")
		e.signIn(testKey)
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+Prefix+"/payments/"+p.ID, nil)
		req.Header.Set("X-Fragment", "live")
		page := e.do(req)
		assert.NotContains(t, page.Body, "<html")
		assert.Contains(t, page.Body, `data-testid="status">AUTHORIZED<`)
	})
}

func TestTimelineMerge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	amt := int64(400)
	no := false
	p := &simulator.Payment{
		ID: "p1", Date: t0, DateUpdated: t0.Add(3 * time.Minute), Status: simulator.StatusPartiallySettled, Amount: 1000, CurrencyCode: "EUR",
		Transactions: []simulator.Transaction{
			{Type: simulator.TxnSale, Date: t0, ProcessorName: "acq", Events: []simulator.TransactionEvent{
				{ID: "e1", Date: t0.Add(time.Second), Type: simulator.EventAuthorizationSucceeded},
				{ID: "e2", Date: t0.Add(2 * time.Minute), Type: simulator.EventCaptureSucceeded, Amount: &amt, Final: &no},
			}},
			{Type: simulator.TxnRefund, Date: t0.Add(3 * time.Minute), Amount: 100, ProcessorStatus: simulator.StatusSettled},
		},
	}
	hooks := []WebhookEvent{ // newest first, as the source lists them
		{ID: "w2", Type: "DISPUTE.OPENED", CreatedAt: t0.Add(time.Second), Status: "PENDING"},
		{ID: "w1", Type: "PAYMENT.STATUS", CreatedAt: t0.Add(time.Second), Status: "DELIVERED"},
	}
	reqs := []JournalEntry{
		{Method: "POST", Path: "/payments/p1/refund", Status: 200, At: t0.Add(2 * time.Minute)},
		{Method: "POST", Path: "/payments/p1/capture", Status: 200, At: t0.Add(2 * time.Minute)},
	}
	var got []string
	for _, it := range buildTimeline(p, hooks, reqs) {
		got = append(got, it.At.Sub(t0).String()+" "+it.Title)
	}
	assert.Equal(t, []string{
		"0s Created: PENDING",
		"1s Status: AUTHORIZED",
		"1s Webhook PAYMENT.STATUS: DELIVERED",
		"1s Webhook DISPUTE.OPENED: PENDING",
		"2m0s Capture 4.00 EUR",
		"2m0s POST /payments/p1/capture → 200",
		"2m0s POST /payments/p1/refund → 200",
		"3m0s Refund 1.00 EUR: SETTLED",
		"3m0s Status: PARTIALLY_SETTLED",
	}, got)
}

func TestTimelineSoftDecline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &simulator.Payment{ID: "p2", Date: t0, DateUpdated: t0.Add(2 * time.Second), Status: simulator.StatusAuthorized, Amount: 500, CurrencyCode: "EUR",
		Transactions: []simulator.Transaction{
			{Type: simulator.TxnSale, Date: t0.Add(time.Second), ProcessorName: "A", ProcessorStatus: simulator.StatusDeclined,
				ProcessorStatusReason: &simulator.StatusReason{Type: "ISSUER_DECLINED", DeclineType: "SOFT_DECLINE"}},
			{Type: simulator.TxnSale, Date: t0.Add(2 * time.Second), ProcessorName: "B", ProcessorStatus: simulator.StatusAuthorized,
				Events: []simulator.TransactionEvent{{Date: t0.Add(2 * time.Second), Type: simulator.EventAuthorizationSucceeded}}},
		}}
	var got []string
	for _, it := range buildTimeline(p, nil, nil) {
		got = append(got, it.Kind+" "+it.Title)
	}
	assert.Equal(t, []string{"status Created: PENDING", "processor A: DECLINED, next processor tried", "status Status: AUTHORIZED"}, got)
	for _, n := range diagram(p, buildTimeline(p, nil, nil)) {
		assert.Equal(t, n.Status == simulator.StatusPending || n.Status == simulator.StatusAuthorized, n.Visited, n.Status)
	}
}

func TestAttemptsAndClock(t *testing.T) {
	e := newEnv(t, Options{})
	amount := int64(900)
	mk := func() string {
		cs, err := e.svc.CreateSession(e.tenant, simulator.SessionData{OrderID: "m", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalManual)
		require.NoError(t, err)
		tok, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{Number: cardOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
		require.NoError(t, err)
		require.NotNil(t, tok.Attempt)
		return tok.Attempt.ID
	}
	approveMe, abortMe, expireMe := mk(), mk(), mk()
	e.signIn(testKey)
	page := e.get(Prefix + "/attempts")
	for _, id := range []string{approveMe, abortMe, expireMe} {
		assert.Contains(t, page.Body, `aria-label="Approve attempt `+id+`"`)
	}
	csrf := e.csrf()
	p := e.post(Prefix+"/attempts/"+approveMe+"/approve", url.Values{"csrf": {csrf}})
	assert.Contains(t, p.Body, "Attempt "+approveMe+" approved: payment ")
	p = e.post(Prefix+"/attempts/"+abortMe+"/abort", url.Values{"csrf": {csrf}})
	assert.Contains(t, p.Body, "aborted")
	p = e.post(Prefix+"/attempts/"+abortMe+"/approve", url.Values{"csrf": {csrf}})
	assert.Contains(t, p.Body, "Refused. InvalidPaymentAttemptTransition")

	t.Run("clock advance expires the attempt and shows what fired", func(t *testing.T) {
		cases := []struct {
			duration string
			status   int
			want     string
		}{
			{"", http.StatusUnprocessableEntity, "Refused. RequestValidationError"},
			{"-5m", http.StatusUnprocessableEntity, "the duration must be positive"},
			{"99999d", http.StatusUnprocessableEntity, "at most 3650d"},
			{"1m", http.StatusOK, "Advanced by 1m0s: what fired"},
			{"20m", http.StatusOK, "expire-attempt · attempt <span class=\"mono\">" + expireMe},
		}
		for _, tc := range cases {
			p := e.post(Prefix+"/clock", url.Values{"csrf": {csrf}, "duration": {tc.duration}})
			assert.Equal(t, tc.status, p.Status, tc.duration)
			assert.Contains(t, p.Body, tc.want, tc.duration)
		}
		at, err := e.svc.Attempt(e.tenant, expireMe)
		require.NoError(t, err)
		assert.Equal(t, simulator.AttemptExpired, at.Status)
		assert.Contains(t, e.get(Prefix+"/attempts?status=EXPIRED").Body, expireMe)
		assert.NotContains(t, e.get(Prefix+"/attempts").Body, expireMe)
	})

	t.Run("a webhook attempt still in flight when the advance stopped waiting says so", func(t *testing.T) {
		at := time.Date(2026, 11, 22, 7, 30, 10, 0, time.UTC)
		d := &clockData{Advanced: "1h0m0s", Fired: []service.Fired{
			{Kind: service.FiredWebhook, At: at, PaymentID: "pay1", EventID: "evt-done"},
			{Kind: service.FiredWebhook, At: at, PaymentID: "pay1", EventID: "evt-flying", Pending: true},
		}}
		r := httptest.NewRequest(http.MethodPost, Prefix+"/clock", nil)
		r.Header.Set("X-Fragment", "live")
		w := httptest.NewRecorder()
		e.ui.render(w, r, http.StatusOK, "clock", &view{Title: "Clock", Nav: "clock", Live: "clock", Data: d})
		require.Equal(t, http.StatusOK, w.Code)
		body := w.Body.String()
		assert.Contains(t, body, `evt-flying</span> (still in flight)</li>`)
		assert.Contains(t, body, `evt-done</span></li>`)
		assert.Equal(t, 1, strings.Count(body, "(still in flight)"))
	})
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1m", time.Minute, true}, {"1h30m", 90 * time.Minute, true}, {"1d", 24 * time.Hour, true}, {" 2d ", 48 * time.Hour, true},
		{"", 0, false}, {"0s", 0, false}, {"-1h", 0, false}, {"d", 0, false}, {"3651d", 0, false}, {"1y", 0, false},
	}
	for _, tc := range cases {
		got, err := parseDuration(tc.in)
		assert.Equal(t, tc.ok, err == nil, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestSourcesNotConfigured(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	for _, path := range []string{"/webhooks", "/scenarios"} {
		p := e.get(Prefix + path)
		assert.Equal(t, http.StatusOK, p.Status)
		assert.Contains(t, p.Body, "not configured in this build", path)
	}
	p := e.post(Prefix+"/webhooks/deliver", url.Values{"csrf": {e.csrf()}})
	assert.Contains(t, p.Body, "Webhooks are not configured in this build")
}

func TestWebhooksView(t *testing.T) {
	hooks := &fakeWebhooks{endpoint: "http://receiver.test/hook", events: []WebhookEvent{{ID: "evt-9", Type: "DISPUTE.OPENED", PaymentID: "pay1", Status: "EXHAUSTED",
		Attempts: []WebhookAttempt{{StatusCode: 500, Latency: 3 * time.Millisecond, Headers: map[string]string{"X-Event-Id": "evt-9"}, Body: `{"eventType":"DISPUTE.OPENED"}`, Response: "oops", Kind: "replay"},
			{Latency: time.Millisecond, Error: "no endpoint"}}}}}
	e := newEnv(t, Options{Webhooks: hooks})
	e.signIn(testKey)
	p := e.get(Prefix + "/webhooks")
	assert.Contains(t, p.Body, `value="http://receiver.test/hook"`)
	assert.Contains(t, p.Body, `<option value="2.4" selected>2.4</option>`, "the webhook version is shown")
	assert.Contains(t, p.Body, "DISPUTE.OPENED")
	for _, want := range []string{ // each attempt: code, latency, kind, headers, body and answer sent; nothing sent without an endpoint
		"<td>500</td><td>3 ms</td>", "(replay)", "X-Event-Id: evt-9\n", "{&#34;eventType&#34;:&#34;DISPUTE.OPENED&#34;}",
		`<pre data-testid="response-head">oops</pre>`, "<p>Nothing was sent: no endpoint.</p>",
	} {
		assert.Contains(t, p.Body, want)
	}
	csrf := e.csrf()
	cases := []struct {
		action string
		form   url.Values
		want   string
	}{
		{"replay", url.Values{"eventId": {"evt-9"}}, "Replayed evt-9: answered 200 in 5ms."},
		{"deliver", nil, "Delivered 2, failed 1."},
		{"endpoint", url.Values{"url": {"http://x.test/h"}}, "Webhook endpoint set to http://x.test/h."},
		{"endpoint", url.Values{"url": {"ftp://bad"}}, "Refused. RequestValidationError"},
		{"endpoint", url.Values{"url": {"http://x.test/h"}, "version": {"2.2"}}, "Webhook endpoint set to http://x.test/h, webhook version 2.2."},
	}
	for _, tc := range cases {
		if tc.form == nil {
			tc.form = url.Values{}
		}
		tc.form.Set("csrf", csrf)
		assert.Contains(t, e.post(Prefix+"/webhooks/"+tc.action, tc.form).Body, tc.want, tc.action)
	}
	assert.Equal(t, "http://x.test/h", hooks.endpoint)
	assert.Contains(t, e.get(Prefix+"/webhooks").Body, `<option value="2.2" selected>2.2</option>`)
	assert.Equal(t, []string{"acme:evt-9"}, hooks.replayed, "acts for the signed-in tenant")
	p = e.post(Prefix+"/webhooks/rotate", url.Values{"csrf": {csrf}})
	assert.Equal(t, http.StatusOK, p.Status)
	assert.Contains(t, p.Body, "New signing secret: new-secret", "shown on the answer itself")
	assert.Contains(t, p.Header.Get("Set-Cookie"), sessionCookie+"=;", "the answer signs this browser out")
}

func TestScenariosView(t *testing.T) {
	sc := &fakeScenarios{yaml: "rules:\n  - name: a\n", explain: Explanation{Rule: "decline-cards"}}
	e := newEnv(t, Options{Scenarios: sc})
	e.signIn(testKey)
	assert.Contains(t, e.get(Prefix+"/scenarios").Body, "rules:\n  - name: a\n")
	csrf := e.csrf()
	bad := "rules:\n  - name: b\n    when: {card: 12}\n"
	p := e.post(Prefix+"/scenarios", url.Values{"csrf": {csrf}, "action": {"apply"}, "yaml": {bad}})
	assert.Equal(t, http.StatusUnprocessableEntity, p.Status)
	assert.Contains(t, p.Body, `<a href="#line-3">line 3</a>: when.card must be a string`)
	assert.Contains(t, p.Body, `<li id="line-3" class="bad"><code>    when: {card: 12}</code><span class="problem">when.card must be a string</span>`)
	assert.Equal(t, "rules:\n  - name: a\n", sc.yaml, "a rejected document changes nothing")
	good := "rules:\n  - name: c\n"
	p = e.post(Prefix+"/scenarios", url.Values{"csrf": {csrf}, "action": {"apply"}, "yaml": {good}})
	assert.Equal(t, http.StatusOK, p.Status)
	assert.Contains(t, p.Body, "Scenarios applied")
	assert.Equal(t, good, sc.yaml)
	p = e.post(Prefix+"/scenarios", url.Values{"csrf": {csrf}, "action": {"explain"}, "sample": {`{"amount":1}`}})
	assert.Contains(t, p.Body, "Matches rule <strong>decline-cards</strong>")
	assert.Equal(t, `{"amount":1}`, sc.lastSample)
}

func TestCheckout(t *testing.T) {
	e := newEnv(t, Options{CheckoutTTL: time.Hour})
	e.signIn(testKey)
	p := e.post(Prefix+"/checkout-link", url.Values{"csrf": {e.csrf()}})
	require.Equal(t, http.StatusOK, p.Status)
	i := strings.Index(p.Body, `data-testid="message-link" class="break">`)
	require.Greater(t, i, 0, p.Body)
	link := p.Body[i+len(`data-testid="message-link" class="break">`):]
	link = strings.ReplaceAll(link[:strings.IndexByte(link, '<')], "&amp;", "&")
	require.True(t, strings.HasPrefix(link, e.srv.URL+Prefix+"/checkout?l="), link)
	u, _ := url.Parse(link)
	l := u.Query().Get("l")

	anon := newEnv(t, Options{}) // a different browser (no cookie) on the same server
	anon.srv = e.srv
	page := anon.get(strings.TrimPrefix(link, e.srv.URL))
	assert.Equal(t, http.StatusOK, page.Status)
	assert.Contains(t, page.Body, "tenant acme")
	assert.Contains(t, page.Body, `<option value="4000000000000002">`)
	assert.NotContains(t, page.Body, testKey, "no API key reaches the browser")

	cases := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"session", url.Values{"l": {l}, "amount": {"19.99"}, "currency": {"EUR"}, "orderId": {"o-9"}}, http.StatusOK, `"clientToken":`},
		{"bad amount", url.Values{"l": {l}, "amount": {"-1"}, "currency": {"EUR"}}, http.StatusUnprocessableEntity, "The amount must look like 19.99"},
		{"bad currency", url.Values{"l": {l}, "amount": {"1"}, "currency": {"EURO"}}, http.StatusUnprocessableEntity, "three-letter ISO 4217"},
		{"forged link", url.Values{"l": {l + "x"}, "amount": {"1"}, "currency": {"EUR"}}, http.StatusForbidden, "not valid"},
		{"session cookie is not a link", url.Values{"l": {sessionValue(t, e)}, "amount": {"1"}, "currency": {"EUR"}}, http.StatusForbidden, "not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := anon.post(Prefix+"/checkout/session", tc.form)
			assert.Equal(t, tc.status, p.Status, p.Body)
			assert.Contains(t, p.Body, tc.want)
		})
	}
	t.Run("3DS challenge page answers and resumes", func(t *testing.T) {
		pay := e.pay(e.tenant, 1000, cardChallenge, "o-3ds", "c")
		require.Equal(t, simulator.StatusPending, pay.Status)
		tok := pay.ThreeDS.ChallengeToken
		page := anon.get(ChallengePagePath + "?token=" + url.QueryEscape(tok) + "&l=" + url.QueryEscape(l))
		require.Equal(t, http.StatusOK, page.Status)
		assert.Contains(t, page.Body, "10.00 EUR to tenant <strong>acme</strong>")
		done := anon.post(ChallengePagePath, url.Values{"token": {tok}, "result": {"AUTH_SUCCESS"}, "l": {l}})
		assert.Equal(t, Prefix+"/checkout/done", done.URL)
		assert.Contains(t, done.Body, "Thank you: payment AUTHORIZED")
		assert.Contains(t, done.Body, `href="/_sandbox/ui/payments/`+pay.ID+`"`)
		again := anon.get(ChallengePagePath + "?token=" + url.QueryEscape(tok))
		assert.Equal(t, http.StatusNotFound, again.Status, "an answered challenge is gone")
	})
	t.Run("signed in, /checkout makes a link for the tenant", func(t *testing.T) {
		p := e.get(Prefix + "/checkout")
		assert.Equal(t, http.StatusOK, p.Status)
		assert.Contains(t, p.Body, "tenant acme")
		assert.Equal(t, http.StatusForbidden, anon.get(Prefix+"/checkout").Status, "without a session or link")
	})
	t.Run("link expires", func(t *testing.T) {
		e.wall.Add(time.Hour)
		assert.Equal(t, http.StatusForbidden, anon.get(strings.TrimPrefix(link, e.srv.URL)).Status)
	})
}

func sessionValue(t *testing.T, e *env) string {
	u, _ := url.Parse(e.srv.URL + Prefix)
	for _, c := range e.client.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			return c.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

func TestParseMajor(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"19.99", 1999, true}, {"5", 500, true}, {"0.5", 50, true}, {"1.", 100, true},
		{"0", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"1.999", 0, false}, {"abc", 0, false}, {"", 0, false}, {"9999999999999", 0, false},
	}
	for _, tc := range cases {
		got, err := parseMajor(tc.in)
		assert.Equal(t, tc.ok, err == nil, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestEventsStream(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+Prefix+"/events?topic=payments&status=AUTHORIZED", nil)
	res, err := e.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	rd := bufio.NewReader(res.Body)
	next := func() string {
		for {
			line, err := rd.ReadString('\n')
			require.NoError(t, err)
			if strings.HasPrefix(line, "event: ") {
				return strings.TrimSpace(strings.TrimPrefix(line, "event: "))
			}
		}
	}
	require.Equal(t, "ready", next())
	e.pay(e.tenant, 100, cardOK, "o", "c")
	assert.Equal(t, "change", next(), "a new payment in the filtered list is a change")

	t.Run("unknown topic", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, e.get(Prefix+"/events?topic=nope").Status)
	})
	t.Run("Close ends open streams", func(t *testing.T) {
		e.ui.Close()
		for {
			if _, err := rd.ReadString('\n'); err != nil {
				break
			}
		}
	})
}

func TestStaticAndNotFound(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.get(Prefix + "/static/app.js")
	assert.Equal(t, http.StatusOK, p.Status)
	assert.Contains(t, p.Body, "EventSource")
	p = e.get(Prefix + "/nope/nothing")
	assert.Equal(t, http.StatusNotFound, p.Status)
	assert.Contains(t, p.Body, "There is no dashboard page")
	assert.Contains(t, p.Header.Get("Content-Security-Policy"), "default-src 'self'")
}

func TestScopesAndIsolation(t *testing.T) {
	e := newEnv(t, Options{})
	mine := e.pay(e.tenant, 1000, cardOK, "o", "c")
	t.Run("a key without transactions:retrieve lists nothing", func(t *testing.T) {
		e.signIn("test-key-capture")
		p := e.get(Prefix + "/payments")
		assert.Contains(t, p.Body, "lacks the transactions:retrieve scope")
		assert.NotContains(t, p.Body, mine.ID)
		assert.Equal(t, http.StatusForbidden, e.get(Prefix+"/payments/"+mine.ID).Status)
		page := e.post(Prefix+"/checkout-link", url.Values{"csrf": {e.csrf()}})
		assert.Contains(t, page.Body, "lacks the scope client_tokens:write, which the checkout needs")
	})
	t.Run("another tenant cannot act on the payment", func(t *testing.T) {
		e.signIn("other-key")
		csrf := e.csrf()
		for _, action := range []string{"capture", "cancel", "dispute", "settle"} {
			p := e.post(Prefix+"/payments/"+mine.ID+"/"+action, url.Values{"csrf": {csrf}})
			assert.Contains(t, p.Body, "Refused. PaymentError: The payment could not be found", action)
		}
		got, err := e.svc.Payment(e.tenant, mine.ID)
		require.NoError(t, err)
		assert.Equal(t, simulator.StatusAuthorized, got.Status)
	})
}

// wrongToken is tok with its first character changed (always a different token).
func wrongToken(tok string) string {
	if strings.HasPrefix(tok, "x") {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}

// TestEventsStreamCatchesUp: a page carries the fingerprint of what it showed
// (data-fp); a stream that connects after the view changed says "change" at
// once, one that connects to an unchanged view does not.
func TestEventsStreamCatchesUp(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	page := e.get(Prefix + "/payments")
	m := regexp.MustCompile(`data-fp="([0-9a-f]+)"`).FindStringSubmatch(page.Body)
	require.NotNil(t, m, "the live region carries its fingerprint")
	fp := m[1]

	// first is the event after ready, or "" when none comes within wait.
	first := func(fp string, wait time.Duration) string {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+Prefix+"/events?topic=payments&fp="+fp, nil)
		res, err := e.client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		rd := bufio.NewReader(res.Body)
		var events []string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				break
			}
			if strings.HasPrefix(line, "event: ") {
				events = append(events, strings.TrimSpace(strings.TrimPrefix(line, "event: ")))
				if len(events) == 2 {
					break
				}
			}
		}
		require.NotEmpty(t, events)
		require.Equal(t, "ready", events[0])
		if len(events) < 2 {
			return ""
		}
		return events[1]
	}
	assert.Equal(t, "", first(fp, 300*time.Millisecond), "nothing changed since the render")
	e.pay(e.tenant, 100, cardOK, "o", "c") // between the render and the stream
	assert.Equal(t, "change", first(fp, 5*time.Second), "the stream catches up at once")
}

// A live page's fingerprint is the one taken before it read what it shows: a
// change landing between the read and the render is then reported by the
// page's stream (taken after, the page would carry the new fingerprint with
// the old data, and the stream would never say "change").
func TestLivePageFingerprintPrecedesItsData(t *testing.T) {
	e := newEnv(t, Options{})
	e.signIn(testKey)
	fpRe := regexp.MustCompile(`data-fp="([0-9a-f]+)"`)
	serve := func(change func()) (body string) {
		h := e.ui.signed(e.ui.live(fixedTopic("payments"), func(w http.ResponseWriter, r *http.Request) {
			change() // after the fingerprint, before the page reads the list
			e.ui.paymentsPage(w, r)
		}))
		req := httptest.NewRequest(http.MethodGet, e.srv.URL+Prefix+"/payments", nil)
		u, _ := url.Parse(e.srv.URL + Prefix + "/payments")
		for _, c := range e.client.Jar.Cookies(u) {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		h(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return rec.Body.String()
	}
	var p *simulator.Payment
	body := serve(func() { p = e.pay(e.tenant, 100, cardOK, "o-fp", "c") })
	assert.Contains(t, body, p.ID, "the page shows the payment made before its read")
	m := fpRe.FindStringSubmatch(body)
	require.NotNil(t, m)
	now := fpRe.FindStringSubmatch(e.get(Prefix + "/payments").Body)
	require.NotNil(t, now)
	assert.NotEqual(t, now[1], m[1], "the fingerprint predates the change, so the stream reports it")

	body = serve(func() {})
	m = fpRe.FindStringSubmatch(body)
	require.NotNil(t, m)
	assert.Equal(t, now[1], m[1], "nothing changed: the same fingerprint")
}

// TestScenariosViewShowsOneShot: the scenarios page shows the tenant's
// pending one-shot, and its button clears it.
func TestScenariosViewShowsOneShot(t *testing.T) {
	e := newEnv(t, Options{Scenarios: &fakeScenarios{yaml: "rules: []\n"}})
	e.signIn(testKey)
	assert.NotContains(t, e.get(Prefix+"/scenarios").Body, `data-testid="next"`, "nothing pending")
	_, err := e.svc.SetNextScenario(e.tenant, "generic-decline", 2)
	require.NoError(t, err)
	body := e.get(Prefix + "/scenarios").Body
	assert.Contains(t, body, `data-testid="next"`)
	assert.Contains(t, body, "the next <strong>2</strong> payment(s) of this tenant take rule <strong>generic-decline</strong>")
	p := e.post(Prefix+"/scenarios", url.Values{"csrf": {e.csrf()}, "action": {"clear-next"}})
	assert.Equal(t, http.StatusOK, p.Status)
	assert.Contains(t, p.Body, "The pending one-shot is cleared")
	assert.NotContains(t, p.Body, `data-testid="next"`)
	o, err := e.svc.NextScenario(e.tenant)
	require.NoError(t, err)
	assert.Nil(t, o)
}

// TestPaymentPageOffersTheKernelActions: the page offers a button exactly
// where Payment.Actions allows it (a PENDING payment in a 3DS challenge can be
// cancelled, as the API allows).
func TestPaymentPageOffersTheKernelActions(t *testing.T) {
	cases := []struct {
		name string
		card string
		want []string // data-testids of the offered actions
	}{
		{"authorized", cardOK, []string{"capture", "cancel", "dispute"}},
		{"pending in a 3DS challenge", cardChallenge, []string{"cancel", "3ds-success", "3ds-failure"}},
		{"declined", cardDecline, nil},
	}
	all := []string{"capture", "refund", "cancel", "settle", "dispute", "3ds-success", "3ds-failure"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			p := e.pay(e.tenant, 1000, tc.card, "o-1", "c-1")
			e.signIn(testKey)
			page := e.get(Prefix + "/payments/" + p.ID)
			require.Equal(t, http.StatusOK, page.Status)
			for _, id := range all {
				offered := strings.Contains(page.Body, `data-testid="`+id+`"`)
				assert.Equal(t, slices.Contains(tc.want, id), offered, "button %s", id)
			}
			a := p.Actions()
			assert.Equal(t, a.Cancel, strings.Contains(page.Body, `data-testid="cancel"`))
			assert.Equal(t, !a.Any(), strings.Contains(page.Body, "takes no further action"))
		})
	}
}

// TestPaymentPageOlderVersion: a payment made with 2.3 shows its version;
// the dashboard's capture keeps the choice of a final capture on every
// version, as the API does.
func TestPaymentPageOlderVersion(t *testing.T) {
	e := newEnv(t, Options{})
	amount := int64(1000)
	cs, err := e.svc.CreateSession(e.tenant, simulator.SessionData{OrderID: "o-v", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalAuto)
	require.NoError(t, err)
	tok, err := e.svc.Tokenize(cs.ClientToken, service.CardInput{Number: cardOK, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030", CardholderName: "Jane"})
	require.NoError(t, err)
	old, err := e.svc.CreatePayment(context.Background(), e.tenant, service.PaymentRequest{Token: tok.Instrument.Token, Version: simulator.V23})
	require.NoError(t, err)
	cur := e.pay(e.tenant, 1000, cardOK, "o-1", "c-1")
	e.signIn(testKey)

	page := e.get(Prefix + "/payments/" + old.ID).Body
	assert.Contains(t, page, `<dd data-testid="api-version">2.3</dd>`)
	assert.Contains(t, page, `id="cap-final"`)
	page = e.get(Prefix + "/payments/" + cur.ID).Body
	assert.Contains(t, page, `<dd data-testid="api-version">2.4</dd>`)
	assert.Contains(t, page, `id="cap-final"`)

	for _, p := range []*simulator.Payment{old, cur} {
		e.post(Prefix+"/payments/"+p.ID+"/capture", url.Values{"amount": {"400"}, "final": {"no"}, "csrf": {e.csrf()}})
		got, err := e.svc.Payment(e.tenant, p.ID)
		require.NoError(t, err)
		assert.False(t, got.FinalCaptured, p.ID)
		assert.Equal(t, simulator.StatusPartiallySettled, got.Status, p.ID)
	}
}
