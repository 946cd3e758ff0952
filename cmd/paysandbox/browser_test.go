package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
)

// docshots rewrites the README's screenshots (docs/*.png) from the browser
// tests: go test ./cmd/paysandbox -run TestBrowser -docshots
var docshots = flag.Bool("docshots", false, "write the README screenshots under docs/")

// chromiumPath finds the browser: $PAYSANDBOX_CHROMIUM, else Debian's chromium.
func chromiumPath() string {
	if p := os.Getenv("PAYSANDBOX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium tab on a real app (real HTTP, real buntdb,
// manual clock), with fake webhooks and scenarios sources on the dashboard.
type browser struct {
	t    *testing.T
	ctx  context.Context
	app  *App
	clk  *clock.Manual
	base string
}

func newBrowser(t *testing.T, hooks *browserWebhooks) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" && os.Getenv("PAYSANDBOX_REQUIRE_BROWSER") != "" {
		t.Fatal("PAYSANDBOX_REQUIRE_BROWSER is set but no Chromium was found (apt-get install -y chromium)")
	}
	if path == "" {
		t.Skip("browser tests need Chromium: apt-get install -y chromium (or set PAYSANDBOX_CHROMIUM), then go test ./cmd/paysandbox -run TestBrowser")
	}
	clk := clock.NewManual(testEpoch)
	app, err := Open(testConfig(), AppOptions{LogOut: io.Discard, Clock: clk, IDs: &simulator.SeqIDs{},
		UI: dashboard.Options{Webhooks: hooks, Scenarios: &browserScenarios{yaml: "rules:\n  - name: decline-cards\n    when: {card: \"4000000000000002\"}\n    authorize: DECLINED\n"}}})
	require.NoError(t, err)
	require.NoError(t, app.Start())
	t.Cleanup(func() { _ = app.Close() })

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	b := &browser{t: t, ctx: ctx, app: app, clk: clk, base: app.URL()}
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)), "start Chromium at %s", path)
	t.Cleanup(b.shotOnFailure)
	return b
}

// sub points the browser at subtest t, with its own failure screenshot.
func (b *browser) sub(t *testing.T) {
	b.t = t
	t.Cleanup(b.shotOnFailure)
}

// shotOnFailure keeps a screenshot of the page a failed test ended on.
func (b *browser) shotOnFailure() {
	if !b.t.Failed() {
		return
	}
	dir := os.Getenv("PAYSANDBOX_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "paysandbox-browser-failures")
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("no failure screenshot: %v", err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(b.t.Name())+".png")
	if os.WriteFile(name, png, 0o644) == nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		b.t.Logf("failure screenshot of %s: %s", loc, name)
	}
}

// do runs steps and fails the test on error.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, steps...))
}

func (b *browser) open(path string) { b.t.Helper(); b.do(chromedp.Navigate(b.base + path)) }

func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(b.t, err, sel)
	return strings.TrimSpace(s)
}

// waitText waits until the element's text contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	js := fmt.Sprintf(`(function(){var e=document.querySelector(%q);return !!e && e.textContent.indexOf(%q)>=0})()`, sel, want)
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||"(none)"`, sel)))
		require.NoError(b.t, err, "waiting for %q in %s; it reads: %s", want, sel, strings.TrimSpace(got))
	}
}

func (b *browser) location() string {
	b.t.Helper()
	l, err := chromedp.Run(b.ctx, chromedp.Location())
	require.NoError(b.t, err)
	return strings.TrimPrefix(l, b.base)
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	require.NoError(b.t, err, js)
	return v
}

// accessible checks the page: every visible control has a label, and
// nothing is wider than the viewport (tables scroll inside their box).
func (b *browser) accessible() {
	b.t.Helper()
	unlabelled := eval[[]string](b, `Array.from(document.querySelectorAll("input:not([type=hidden]),select,textarea,button"))
		.filter(function(e){return !(e.labels&&e.labels.length) && !e.getAttribute("aria-label") && !(e.tagName==="BUTTON"&&e.textContent.trim())})
		.map(function(e){return e.outerHTML.slice(0,80)})`)
	assert.Empty(b.t, unlabelled, "controls without a label on %s", b.location())
	wide := eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth + 1`)
	assert.False(b.t, wide, "page wider than the viewport on %s", b.location())
}

// docShot writes docs/<name>.png when -docshots is set.
func (b *browser) docShot(name string) {
	b.t.Helper()
	if !*docshots {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	require.NoError(b.t, os.MkdirAll("../../docs", 0o755))
	require.NoError(b.t, os.WriteFile(filepath.Join("../../docs", name+".png"), png, 0o644))
}

func (b *browser) signIn() {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS("#apiKey")))
	require.Equal(b.t, "/_sandbox/ui/login", b.location(), "a browser at / lands on the dashboard's sign-in")
	key := eval[string](b, `document.getElementById("apiKey").value`)
	require.Equal(b.t, simulator.DefaultAPIKey, key, "the default key is prefilled on a local serve")
	b.accessible()
	b.clickAway("button.primary")
	require.Equal(b.t, "default", b.text("[data-testid=tenant]"))
}

// checkoutLink makes a checkout link from the dashboard and returns it.
func (b *browser) checkoutLink() string {
	b.t.Helper()
	b.open("/_sandbox/ui/payments")
	b.clickAway("[data-testid=checkout-link]")
	link := b.text("[data-testid=message-link]")
	require.True(b.t, strings.HasPrefix(link, b.base+"/_sandbox/ui/checkout?l="), link)
	return link
}

// checkout pays with card on the demo checkout and waits for the next page.
func (b *browser) checkout(link, card string) {
	b.t.Helper()
	b.do(chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("[data-testid=pay]")))
	b.do(chromedp.SetValue(chromedp.CSS("#co-card"), card))
	b.clickAway("[data-testid=pay]")
}

// clickAway clicks sel and waits until the browser shows another document
// (the current body is marked; a new page's body is not).
func (b *browser) clickAway(sel string) {
	b.t.Helper()
	b.do(chromedp.SetAttributeValue(chromedp.CSS("body"), "data-old-page", "1"),
		chromedp.Click(chromedp.CSS(sel)), chromedp.WaitVisible(chromedp.CSS("body:not([data-old-page]) main")))
}

func TestBrowser(t *testing.T) {
	hooks := &browserWebhooks{disputed: map[string]bool{}}
	b := newBrowser(t, hooks)
	b.signIn()
	link := b.checkoutLink()

	var okID string
	t.Run("checkout with a success card", func(t *testing.T) {
		b.sub(t)
		b.checkout(link, "4111111111111111")
		b.waitText("[data-testid=outcome]", "Thank you: payment AUTHORIZED")
		b.accessible()
		b.clickAway("[data-testid=dashboard-link]")
		assert.Equal(t, "AUTHORIZED", b.text("[data-testid=status]"))
		okID = strings.TrimPrefix(b.location(), "/_sandbox/ui/payments/")
		assert.Contains(t, b.text("[data-testid=timeline]"), "Status: AUTHORIZED")
	})
	t.Run("checkout with a decline card", func(t *testing.T) {
		b.sub(t)
		b.checkout(link, "4000000000000002")
		b.waitText("[data-testid=outcome]", "Payment DECLINED")
	})
	t.Run("checkout with a typed card that fails Luhn shows the API error", func(t *testing.T) {
		b.sub(t)
		b.do(chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("[data-testid=pay]")))
		b.do(chromedp.SetValue(chromedp.CSS("#co-card"), ""), chromedp.SendKeys(chromedp.CSS("#co-number"), "4111 1111 1111 1112"),
			chromedp.Click(chromedp.CSS("[data-testid=pay]")))
		b.waitText("[data-testid=checkout-status]", "The card number fails the Luhn check")
	})
	t.Run("checkout with a 3DS card and the challenge page", func(t *testing.T) {
		b.sub(t)
		b.checkout(link, "4916994064252017")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=authenticate]")))
		assert.True(t, strings.HasPrefix(b.location(), "/_sandbox/ui/checkout/challenge?token="), b.location())
		b.accessible()
		b.docShot("checkout-3ds-challenge")
		b.clickAway("[data-testid=authenticate]")
		b.waitText("[data-testid=outcome]", "Thank you: payment AUTHORIZED")
		b.clickAway("[data-testid=dashboard-link]")
		assert.Contains(t, b.text("[data-testid=timeline]"), "3DS: AUTH_SUCCESS")
		assert.Contains(t, b.text("[data-testid=timeline]"), "Webhook PAYMENT.STATUS: DELIVERED")
	})
	t.Run("dispute from the payment page", func(t *testing.T) {
		b.sub(t)
		require.NotEmpty(t, okID)
		b.open("/_sandbox/ui/payments/" + okID)
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=dispute]")))
		b.accessible()
		b.clickAway("[data-testid=dispute]")
		b.waitText("[data-testid=flash]", "opened for 1999 (reason FRAUDULENT)")
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.body.dataset.live === "on"`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err, "the event stream connects")
		hooks.dispatched(okID) // the dispatcher delivered DISPUTE.OPENED: the open page updates live
		b.waitText("[data-testid=timeline]", "Webhook DISPUTE.OPENED: DELIVERED")
		b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.docShot("dashboard-payment")
		b.do(chromedp.Click(chromedp.CSS("details.hook-details > summary")), chromedp.Click(chromedp.CSS("details.hook-details details > summary")),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("h-timeline").scrollIntoView()`))
		assert.Contains(t, b.text("details.hook-details details pre"), "X-Signature-Primary: base64-hmac", "the exact headers sent")
		b.docShot("dashboard-timeline")
		b.clickAway("[data-testid=capture]")
		b.waitText("[data-testid=flash]", "Captured. The payment is SETTLED.")
		b.do(chromedp.SetValue(chromedp.CSS("#ref-amount"), "999999"))
		b.clickAway("[data-testid=refund]")
		b.waitText("[data-testid=flash]", "Refused. UnprocessableRefundAmount")
		b.clickAway("[data-testid=refund]")
		b.waitText("[data-testid=flash]", "Refund requested. Refunded so far: 19.99 EUR.")
	})
	t.Run("payments list updates live and filters", func(t *testing.T) {
		b.sub(t)
		b.open("/_sandbox/ui/payments")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=payments]")))
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.body.dataset.live === "on"`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err, "the event stream connects")
		top := eval[float64](b, `document.querySelector("[data-testid=payments]").getBoundingClientRect().top`)
		p := payDirect(t, b.app, 4242, "4242424242424242")
		b.waitText("[data-testid=payments] tbody", p.ID)
		assert.Equal(t, top, eval[float64](b, `document.querySelector("[data-testid=payments]").getBoundingClientRect().top`), "no layout shift")
		b.accessible()
		b.docShot("dashboard-payments")
		b.do(chromedp.SetValue(chromedp.CSS("#f-status"), "DECLINED"))
		b.clickAway(".filters button[type=submit]")
		b.waitText("[data-testid=payments] tbody", "DECLINED")
		assert.NotContains(t, b.text("[data-testid=payments] tbody"), "AUTHORIZED")
	})
	t.Run("keyboard: skip link first, then navigation", func(t *testing.T) {
		b.sub(t)
		b.open("/_sandbox/ui/payments")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=payments]")), chromedp.KeyEvent("\t"))
		assert.Equal(t, "Skip to content", eval[string](b, `document.activeElement.textContent`))
		b.do(chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"), chromedp.KeyEvent("\t"))
		assert.Equal(t, "Attempts", eval[string](b, `document.activeElement.textContent`))
		b.do(chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS("[data-testid=attempts]")))
	})
	t.Run("clock advance expires an attempt", func(t *testing.T) {
		b.sub(t)
		id := manualAttempt(t, b.app)
		b.open("/_sandbox/ui/attempts")
		b.waitText("[data-testid=attempts]", id)
		b.accessible()
		b.open("/_sandbox/ui/clock")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=advance]")))
		b.waitText("#live", "expire-attempt")
		b.clickAway(`button[value="1h"]`)
		b.waitText("[data-testid=fired]", "expire-attempt · attempt "+id)
		assert.Equal(t, "2026-11-22 08:30:00 UTC", b.text("[data-testid=now]"), "the page shows the moved clock")
		b.accessible()
		b.docShot("dashboard-clock")
		b.open("/_sandbox/ui/attempts?status=EXPIRED")
		b.waitText("[data-testid=attempts]", id)
	})
	t.Run("scenario editing with an error", func(t *testing.T) {
		b.sub(t)
		b.open("/_sandbox/ui/scenarios")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=yaml]")))
		b.do(chromedp.SetValue(chromedp.CSS("[data-testid=yaml]"), "rules:\n  - name: broken\n    when: {card: 4000}\n    authorize: DECLINED\n"))
		b.clickAway("[data-testid=apply]")
		b.waitText("[data-testid=problems]", "line 3: when.card must be a quoted string")
		assert.Contains(t, b.text("#line-3"), "when: {card: 4000}")
		b.accessible()
		b.docShot("dashboard-scenarios-error")
	})
	t.Run("phone width", func(t *testing.T) {
		b.sub(t)
		b.do(chromedp.EmulateViewport(390, 844))
		defer b.do(chromedp.EmulateViewport(1280, 800))
		for _, path := range []string{"/_sandbox/ui/payments", "/_sandbox/ui/payments/" + okID, "/_sandbox/ui/clock"} {
			b.open(path)
			b.do(chromedp.WaitVisible(chromedp.CSS("main")))
			b.accessible()
		}
		b.do(chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("[data-testid=pay]")))
		b.accessible()
		b.docShot("checkout-phone")
	})
}

// payDirect pays in the default tenant through the service (not the browser).
func payDirect(t *testing.T, app *App, amount int64, number string) *simulator.Payment {
	t.Helper()
	ten, err := app.Svc.Tenant(simulator.DefaultTenantID)
	require.NoError(t, err)
	cs, err := app.Svc.CreateSession(ten, simulator.SessionData{OrderID: "live-1", CurrencyCode: "EUR", Amount: &amount, CustomerID: "c"}, simulator.ApprovalAuto)
	require.NoError(t, err)
	tok, err := app.Svc.Tokenize(cs.ClientToken, simulator.CardInput{Number: number, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
	require.NoError(t, err)
	p, err := app.Svc.CreatePayment(context.Background(), ten, simulator.PaymentRequest{Token: tok.Instrument.Token})
	require.NoError(t, err)
	return p
}

// manualAttempt makes an attempt awaiting approval in the default tenant.
func manualAttempt(t *testing.T, app *App) string {
	t.Helper()
	ten, err := app.Svc.Tenant(simulator.DefaultTenantID)
	require.NoError(t, err)
	amount := int64(1500)
	cs, err := app.Svc.CreateSession(ten, simulator.SessionData{OrderID: "manual-1", CurrencyCode: "EUR", Amount: &amount}, simulator.ApprovalManual)
	require.NoError(t, err)
	tok, err := app.Svc.Tokenize(cs.ClientToken, simulator.CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
	require.NoError(t, err)
	require.NotNil(t, tok.Attempt)
	return tok.Attempt.ID
}

// browserWebhooks is a stand-in for the webhooks dispatcher (wired by the
// composition root after merging): every payment has one delivered
// PAYMENT.STATUS event, and a dispute opened from the dashboard adds a
// DISPUTE.OPENED one, so the timeline's merge shows in a real browser.
type browserWebhooks struct {
	mu       sync.Mutex
	disputed map[string]bool
}

// dispatched records that DISPUTE.OPENED of payment id was delivered.
func (w *browserWebhooks) dispatched(id string) {
	w.mu.Lock()
	w.disputed[id] = true
	w.mu.Unlock()
}

func (w *browserWebhooks) Endpoint(*simulator.Tenant) (string, error) {
	return "http://receiver.test/hooks", nil
}
func (w *browserWebhooks) SetEndpoint(*simulator.Tenant, string) error { return nil }
func (w *browserWebhooks) Events(t *simulator.Tenant, paymentID string, _ int) ([]dashboard.WebhookEvent, error) {
	if paymentID == "" {
		return nil, nil
	}
	at := testEpoch
	ev := func(typ, id string) dashboard.WebhookEvent {
		body := fmt.Sprintf(`{"eventType":%q,"payment":{"id":%q}}`, typ, paymentID)
		return dashboard.WebhookEvent{ID: id, Type: typ, PaymentID: paymentID, Status: "DELIVERED", CreatedAt: at, Body: body,
			Attempts: []dashboard.WebhookAttempt{{At: at, StatusCode: 200, Latency: 7 * time.Millisecond, Body: body,
				Headers: map[string]string{"Content-Type": "application/json", "X-Signature-Primary": "base64-hmac", "X-Event-Id": id}}}}
	}
	out := []dashboard.WebhookEvent{ev("PAYMENT.STATUS", "evt-status-"+paymentID)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.disputed[paymentID] {
		out = append(out, ev("DISPUTE.OPENED", "evt-dispute-"+paymentID))
	}
	return out, nil
}
func (w *browserWebhooks) Replay(context.Context, *simulator.Tenant, string) (dashboard.WebhookAttempt, error) {
	return dashboard.WebhookAttempt{StatusCode: 200}, nil
}
func (w *browserWebhooks) DeliverNow(context.Context, *simulator.Tenant) (int, int, error) {
	return 0, 0, nil
}
func (w *browserWebhooks) RotateSecret(*simulator.Tenant) (string, error) { return "rotated", nil }

// browserScenarios stands in for the scenario engine: a `card:` value must
// be a quoted string (so the test can make a line-numbered error).
type browserScenarios struct {
	mu   sync.Mutex
	yaml string
}

func (s *browserScenarios) Rules(*simulator.Tenant) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yaml, "scenarios.yaml", nil
}
func (s *browserScenarios) Apply(_ *simulator.Tenant, doc string) ([]dashboard.ScenarioProblem, error) {
	var out []dashboard.ScenarioProblem
	for i, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, "card:") && !strings.Contains(l, `card: "`) {
			out = append(out, dashboard.ScenarioProblem{Line: i + 1, Message: "when.card must be a quoted string"})
		}
	}
	if len(out) == 0 {
		s.mu.Lock()
		s.yaml = doc
		s.mu.Unlock()
	}
	return out, nil
}
func (s *browserScenarios) Reset(*simulator.Tenant) error { return nil }
func (s *browserScenarios) ExplainPayment(*simulator.Tenant, string) (dashboard.Explanation, error) {
	return dashboard.Explanation{Rule: "default", Reasons: []string{"decline-cards: the card is not 4000000000000002"}}, nil
}
func (s *browserScenarios) ExplainRequest(*simulator.Tenant, string) (dashboard.Explanation, error) {
	return dashboard.Explanation{Rule: "default"}, nil
}
