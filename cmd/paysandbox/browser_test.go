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
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// docshots rewrites the screenshots of docs/dashboard.md (docs/*.png) from the browser
// tests: go test ./cmd/paysandbox -run TestBrowser -docshots
var docshots = flag.Bool("docshots", false, "write the dashboard screenshots under docs/")

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
// manual clock) whose dashboard runs on the real sources: the webhook
// dispatcher delivering to rc (a real local receiver, the default tenant's
// endpoint), the scenario engine and the request journal.
type browser struct {
	t    *testing.T
	ctx  context.Context
	app  *App
	clk  *clock.Manual
	rc   *receiver
	base string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" && os.Getenv("PAYSANDBOX_REQUIRE_BROWSER") != "" {
		t.Fatal("PAYSANDBOX_REQUIRE_BROWSER is set but no Chromium was found (apt-get install -y chromium)")
	}
	if path == "" {
		t.Skip("browser tests need Chromium: apt-get install -y chromium (or set PAYSANDBOX_CHROMIUM), then go test ./cmd/paysandbox -run TestBrowser")
	}
	clk := clock.NewManual(testEpoch)
	rc := newReceiver(t, answer(200))
	cfg := testConfig()
	cfg.WebhookURL = rc.URL
	app, err := Open(cfg, AppOptions{LogOut: io.Discard, Clock: clk, IDs: &idgen.Seq{}})
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
	b := &browser{t: t, ctx: ctx, app: app, clk: clk, rc: rc, base: app.URL()}
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

// text waits for sel and reads its text in one script run: a live region may
// replace its nodes at any moment, and a node looked up first and read after
// can be gone by then (chromedp.Text then reads "" or fails).
func (b *browser) text(sel string) string {
	b.t.Helper()
	js := fmt.Sprintf(`(function(){var e=document.querySelector(%q);return e?[e.innerText]:null})()`, sel)
	s, err := chromedp.Run(b.ctx, chromedp.Poll[[]string](js, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(b.t, err, sel)
	require.Len(b.t, s, 1, sel)
	return strings.TrimSpace(s[0])
}

// setValue sets a control's value in one script run (see text) and tells the
// page as typing would.
func (b *browser) setValue(sel, value string) {
	b.t.Helper()
	js := fmt.Sprintf(`(function(){var e=document.querySelector(%q);if(!e)return false;e.value=%q;e.dispatchEvent(new Event("input",{bubbles:true}));e.dispatchEvent(new Event("change",{bubbles:true}));return true})()`, sel, value)
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(b.t, err, sel)
}

// waitText waits until the element's text contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	js := fmt.Sprintf(`(function(){var e=document.querySelector(%q);return !!e && e.textContent.indexOf(%q)>=0})()`, sel, want)
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||"(none)"`, sel)))
		live, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`"stream " + (document.body.dataset.live||"off") + ", " + (document.body.dataset.liveUpdates||"0") + " refresh(es)"`))
		require.NoError(b.t, err, "waiting for %q in %s (live region: %s); it reads: %s", want, sel, live, strings.TrimSpace(got))
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
	b.do(chromedp.SetAttributeValue(chromedp.CSS("body"), "data-old-page", "1"))
	b.click(sel)
	b.do(chromedp.WaitVisible(chromedp.CSS("body:not([data-old-page]) main")))
}

// click clicks sel like a user. A live region can replace the element
// between chromedp's lookup and its click: chromedp then fails before any
// mouse event was sent ("No node with given id"), and the click is tried
// again on the new element.
func (b *browser) click(sel string) {
	b.t.Helper()
	var err error
	for range 5 {
		if err = chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS(sel))); err == nil || !strings.Contains(err.Error(), "No node with given id") {
			break
		}
	}
	require.NoError(b.t, err, sel)
}

func TestBrowser(t *testing.T) {
	b := newBrowser(t)
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
		b.waitText("[data-testid=timeline]", "Webhook PAYMENT.STATUS: DELIVERED") // the dispatcher delivers in the background; the page is live
		assert.Contains(t, b.text("[data-testid=timeline]"), "POST /client/payments", "the journal's requests")
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
		b.waitText("[data-testid=timeline]", "Webhook DISPUTE.OPENED: DELIVERED") // the real delivery, live
		sent := b.rc.find(t, b.app, "DISPUTE.OPENED", okID)
		b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.docShot("dashboard-payment")
		b.click("li[data-event='DISPUTE.OPENED'] details.hook-details > summary")
		b.click("li[data-event='DISPUTE.OPENED'] details.attempt > summary")
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector("li[data-event='DISPUTE.OPENED']").scrollIntoView()`))
		attempt := "li[data-event='DISPUTE.OPENED'] details.attempt "
		assert.Contains(t, b.text("li[data-event='DISPUTE.OPENED'] .what"), "DISPUTE.OPENED")
		assert.Contains(t, b.text(attempt+"[data-testid=sent-headers]"), "X-Signature-Primary: "+sent.Header.Get("X-Signature-Primary"), "the exact headers sent")
		assert.Contains(t, b.text(attempt+"[data-testid=sent-headers]"), "X-Event-Id: "+sent.Header.Get("X-Event-Id"))
		assert.Equal(t, string(sent.Body), b.text(attempt+"[data-testid=sent-body]"), "the exact body sent")
		assert.Equal(t, `{"ok":200}`, b.text(attempt+"[data-testid=response-head]"), "the start of the answer")
		b.docShot("dashboard-timeline")
		b.clickAway("[data-testid=capture]")
		b.waitText("[data-testid=flash]", "Captured. The payment is SETTLED.")
		// A value typed into the live region survives a refresh of it: a refund
		// made elsewhere changes the page while the user is about to send theirs.
		_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`document.body.dataset.live === "on"`, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err, "the event stream connects")
		b.setValue("#ref-amount", "999999")
		b.setValue("#ref-reason", "typed before the refresh")
		updates := eval[string](b, `document.body.dataset.liveUpdates || "0"`)
		ten, err := b.app.Svc.Tenant(simulator.DefaultTenantID)
		require.NoError(t, err)
		cent := int64(1)
		_, err = b.app.Svc.RefundPayment(context.Background(), ten, okID, service.RefundRequest{Amount: &cent})
		require.NoError(t, err)
		b.waitText("dl.facts", "0.01 EUR")
		assert.NotEqual(t, updates, eval[string](b, `document.body.dataset.liveUpdates || "0"`), "the region was fetched again")
		assert.Equal(t, "999999", eval[string](b, `document.getElementById("ref-amount").value`), "the typed amount is kept")
		assert.Equal(t, "typed before the refresh", eval[string](b, `document.getElementById("ref-reason").value`))
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
	t.Run("a stream past the tenant's cap: the page says live updates are paused", func(t *testing.T) {
		b.sub(t)
		b.open("/_sandbox/ui/scenarios") // no live region: the last page's stream ends
		require.Eventually(t, func() bool { return b.app.Svc.Held().Open(simulator.DefaultTenantID) == 0 }, 20*time.Second, 10*time.Millisecond)
		var releases []func() // the tenant's held slots, taken as long-polls would
		defer func() {
			for _, r := range releases {
				r()
			}
		}()
		for {
			r, err := b.app.Svc.Held().Acquire(simulator.DefaultTenantID)
			if err != nil {
				break
			}
			releases = append(releases, r)
		}
		b.open("/_sandbox/ui/payments")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=payments]")))
		b.waitText("[data-testid=live-off]", "Live updates are paused")
		assert.Equal(t, "off", eval[string](b, `document.body.dataset.live || ""`))
		b.accessible()
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
	t.Run("clock advance expires an attempt and retries a webhook", func(t *testing.T) {
		b.sub(t)
		id := manualAttempt(t, b.app)
		b.rc.setAnswer(answer(500)) // a failed delivery leaves its retry scheduled on the tenant clock
		p := payDirect(t, b.app, 777, "4111111111111111")
		ten, err := b.app.Svc.Tenant(simulator.DefaultTenantID)
		require.NoError(t, err)
		_, failed, err := b.app.Svc.DeliverWebhooks(context.Background(), ten)
		require.NoError(t, err)
		require.Equal(t, 1, failed, "the payment's first event failed; the next waits behind it")
		b.rc.setAnswer(answer(200))
		b.open("/_sandbox/ui/attempts")
		b.waitText("[data-testid=attempts]", id)
		b.accessible()
		b.open("/_sandbox/ui/clock")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=advance]")))
		b.waitText("#live", "expire-attempt")
		b.clickAway(`button[value="1h"]`)
		b.waitText("[data-testid=fired]", "expire-attempt · attempt "+id)
		assert.Contains(t, b.text("[data-testid=fired]"), "webhook · payment "+p.ID+" · event ", "the retry the advance made due, as the API's fired list has it")
		assert.Equal(t, "2026-11-22 08:30:00 UTC", b.text("[data-testid=now]"), "the page shows the moved clock")
		b.accessible()
		b.docShot("dashboard-clock")
		b.open("/_sandbox/ui/attempts?status=EXPIRED")
		b.waitText("[data-testid=attempts]", id)
	})
	t.Run("webhooks page: a failing receiver, its attempt as sent, replay", func(t *testing.T) {
		b.sub(t)
		b.rc.setAnswer(answer(500))
		defer b.rc.setAnswer(answer(200))
		p := payDirect(t, b.app, 1234, "4111111111111111")
		b.open("/_sandbox/ui/webhooks?paymentId=" + p.ID)
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=events]")))
		b.waitText("[data-testid=events] tbody", "1 attempt(s)") // the dispatcher's first try, live
		failed := b.rc.find(t, b.app, "PAYMENT.STATUS", p.ID)
		evID := failed.Header.Get("X-Event-Id")
		row := fmt.Sprintf("tr[data-event-id='%s'] ", evID)
		b.click(row + "details.hook-details > summary")
		b.click(row + "details.attempt > summary")
		assert.Contains(t, b.text(row+".attempts tbody"), "500")
		assert.Contains(t, b.text(row+"[data-testid=sent-headers]"), "X-Signature-Primary: "+failed.Header.Get("X-Signature-Primary"))
		assert.Equal(t, string(failed.Body), b.text(row+"[data-testid=sent-body]"), "the exact body sent")
		assert.Equal(t, `{"ok":500}`, b.text(row+"[data-testid=response-head]"))
		b.accessible()
		b.docShot("dashboard-webhooks")
		b.rc.setAnswer(answer(200))
		b.clickAway(fmt.Sprintf("button[aria-label='Replay event %s']", evID))
		b.waitText("[data-testid=flash]", "Replayed "+evID+": answered 200")
		b.waitText(row+".badge", "DELIVERED")
		b.open("/_sandbox/ui/payments/" + p.ID)
		b.waitText("[data-testid=timeline]", "Webhook PAYMENT.STATUS: DELIVERED")
	})
	t.Run("scenario editing: an error, then valid rules, then explain", func(t *testing.T) {
		b.sub(t)
		b.open("/_sandbox/ui/scenarios")
		b.do(chromedp.WaitVisible(chromedp.CSS("[data-testid=yaml]")))
		assert.Contains(t, b.text("label[for=yaml]"), "the built-in scenarios.yaml")
		b.do(chromedp.SetValue(chromedp.CSS("[data-testid=yaml]"), "rules:\n  - name: broken\n    when: {card: 4000}\n    authorize: DECLINED\n"))
		b.clickAway("[data-testid=apply]")
		b.waitText("[data-testid=problems]", `line 3: card "4000" is not 12-19 digits passing the Luhn check`)
		assert.Contains(t, b.text("[data-testid=problems]"), "line 4: an authorize step must be a mapping")
		assert.Contains(t, b.text("#line-3"), "when: {card: 4000}")
		b.accessible()
		b.docShot("dashboard-scenarios-error")

		good := "rules:\n  - name: big-declines\n    when: { amount: { min: 5000 } }\n    authorize: { status: DECLINED }\n"
		b.do(chromedp.SetValue(chromedp.CSS("[data-testid=yaml]"), good))
		b.clickAway("[data-testid=apply]")
		b.waitText("[data-testid=flash]", "Scenarios applied")
		assert.Contains(t, b.text("label[for=yaml]"), "this tenant's own rules")
		assert.Equal(t, good, eval[string](b, `document.getElementById("yaml").value`))

		b.do(chromedp.SetValue(chromedp.CSS("#ex-sample"), `{"amount": 6000, "currencyCode": "EUR", "card": "4111111111111111"}`))
		b.clickAway("button[value=explain]")
		b.waitText("[data-testid=explain]", "Matches rule big-declines")
		assert.Contains(t, b.text("[data-testid=explain]"), "big-declines: matches (amount 6000 is at least 5000)")
		p := payDirect(t, b.app, 6000, "4111111111111111")
		assert.Equal(t, simulator.StatusDeclined, p.Status, "new payments follow the applied rules")
		b.open("/_sandbox/ui/payments/" + p.ID)
		assert.Equal(t, "big-declines", b.text("[data-testid=rule]"))
		assert.Contains(t, b.text("[data-testid=explain]"), "big-declines")

		b.open("/_sandbox/ui/scenarios")
		b.clickAway("button[value=reset]")
		b.waitText("[data-testid=flash]", "Back to the rules of the scenarios file")
		assert.Contains(t, b.text("label[for=yaml]"), "the built-in scenarios.yaml")
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
	tok, err := app.Svc.Tokenize(cs.ClientToken, service.CardInput{Number: number, CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
	require.NoError(t, err)
	p, err := app.Svc.CreatePayment(context.Background(), ten, service.PaymentRequest{Token: tok.Instrument.Token})
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
	tok, err := app.Svc.Tokenize(cs.ClientToken, service.CardInput{Number: "4111111111111111", CVV: "123", ExpirationMonth: "12", ExpirationYear: "2030"})
	require.NoError(t, err)
	require.NotNil(t, tok.Attempt)
	return tok.Attempt.ID
}

// find is the latest delivery the receiver got of an event of type typ of
// the payment (default tenant), matched by X-Event-Id.
func (rc *receiver) find(t *testing.T, app *App, typ, paymentID string) delivery {
	t.Helper()
	ten, err := app.Svc.Tenant(simulator.DefaultTenantID)
	require.NoError(t, err)
	evs, err := app.Svc.Events(ten, simulator.EventQuery{PaymentID: paymentID, Type: typ})
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, ev := range evs {
		ids[ev.ID] = true
	}
	var out delivery
	for _, d := range rc.deliveries() {
		if ids[d.Header.Get("X-Event-Id")] {
			out = d
		}
	}
	require.NotNil(t, out.Body, "the receiver got a %s event of %s", typ, paymentID)
	return out
}
