package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestPayNextFlags is the flag-parsing table of `pay`, `next` and the
// --api-version every client command takes (through runF; usage errors exit 2).
func TestPayNextFlags(t *testing.T) {
	pay := func(d *cliDeps, got *any) *cobra.Command {
		return newPayCmd(d, func(o *payOptions) error { *got = o; return nil })
	}
	next := func(d *cliDeps, got *any) *cobra.Command {
		return newNextCmd(d, func(o *nextOptions) error { *got = o; return nil })
	}
	clock := func(d *cliDeps, got *any) *cobra.Command {
		return newClockShowCmd(d, func(o *simpleOptions) error { *got = o; return nil })
	}
	tests := []struct {
		name     string
		cmd      func(d *cliDeps, got *any) *cobra.Command
		args     []string
		env      map[string]string
		want     func(t *testing.T, o any)
		wantCode int
	}{
		{name: "pay defaults", cmd: pay,
			want: func(t *testing.T, o any) {
				p := o.(*payOptions)
				assert.Equal(t, payOptions{Amount: 1000, Currency: "EUR", Card: defaultPayCard}, payOptions{Amount: p.Amount, Currency: p.Currency,
					Card: p.Card, Customer: p.Customer, Order: p.Order, Metadata: p.Metadata, Manual: p.Manual})
				assert.Equal(t, "2.4", p.Client.APIVersion)
			}},
		{name: "pay every flag", cmd: pay,
			args: []string{"--amount", "5040", "--currency", "USD", "--card", "4000000000000002", "--customer", "c-1",
				"--order", "o-1", "--metadata", "refund=fail,k=v", "--manual", "-o", "json"},
			want: func(t *testing.T, o any) {
				p := o.(*payOptions)
				assert.Equal(t, payOptions{Amount: 5040, Currency: "USD", Card: "4000000000000002", Customer: "c-1", Order: "o-1",
					Metadata: map[string]string{"refund": "fail", "k": "v"}, Manual: true},
					payOptions{Amount: p.Amount, Currency: p.Currency, Card: p.Card, Customer: p.Customer, Order: p.Order, Metadata: p.Metadata, Manual: p.Manual})
				assert.Equal(t, "json", p.Client.Output)
			}},
		{name: "pay notes a held request after 2s", cmd: pay,
			want: func(t *testing.T, o any) {
				p := o.(*payOptions)
				assert.Equal(t, payNoteAfter, p.NoteAfter)
				assert.Empty(t, p.Reach, "--url and --api-key from the environment or defaults: suggested commands find them too")
			}},
		{name: "pay carries a typed --url and --api-key into the commands it suggests", cmd: pay,
			args: []string{"--url", "http://sandbox:9090", "--api-key", "k 1"},
			want: func(t *testing.T, o any) {
				assert.Equal(t, " --url http://sandbox:9090 --api-key 'k 1'", o.(*payOptions).Reach)
			}},
		{name: "pay negative amount", cmd: pay, args: []string{"--amount", "-1"}, wantCode: exitUsage},
		{name: "pay amount not a number", cmd: pay, args: []string{"--amount", "ten"}, wantCode: exitUsage},
		{name: "pay takes no arguments", cmd: pay, args: []string{"1000"}, wantCode: exitUsage},
		{name: "--api-version from PAYSANDBOX_API_VERSION", cmd: clock, env: map[string]string{"PAYSANDBOX_API_VERSION": "2.2"},
			want: func(t *testing.T, o any) { assert.Equal(t, "2.2", o.(*simpleOptions).Client.APIVersion) }},
		{name: "--api-version flag wins over env", cmd: pay, env: map[string]string{"PAYSANDBOX_API_VERSION": "2.2"}, args: []string{"--api-version", "2.3"},
			want: func(t *testing.T, o any) { assert.Equal(t, "2.3", o.(*payOptions).Client.APIVersion) }},
		{name: "--api-version empty", cmd: clock, args: []string{"--api-version", ""}, wantCode: exitUsage},
		{name: "next RULE --times", cmd: next, args: []string{"generic-decline", "--times", "3"},
			want: func(t *testing.T, o any) {
				n := o.(*nextOptions)
				assert.Equal(t, []any{"generic-decline", 3, false}, []any{n.Rule, n.Times, n.Clear})
			}},
		{name: "next RULE defaults to once", cmd: next, args: []string{"generic-decline"},
			want: func(t *testing.T, o any) { assert.Equal(t, 1, o.(*nextOptions).Times) }},
		{name: "next alone shows", cmd: next,
			want: func(t *testing.T, o any) {
				assert.Equal(t, []any{"", false}, []any{o.(*nextOptions).Rule, o.(*nextOptions).Clear})
			}},
		{name: "next --clear", cmd: next, args: []string{"--clear"},
			want: func(t *testing.T, o any) { assert.True(t, o.(*nextOptions).Clear) }},
		{name: "next RULE --clear", cmd: next, args: []string{"generic-decline", "--clear"}, wantCode: exitUsage},
		{name: "next --times without RULE", cmd: next, args: []string{"--times", "2"}, wantCode: exitUsage},
		{name: "next two rules", cmd: next, args: []string{"a", "b"}, wantCode: exitUsage},
		{name: "next --times not a number", cmd: next, args: []string{"a", "--times", "x"}, wantCode: exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			deps, _, _ := testDeps(tc.env)
			var got any
			cmd := tc.cmd(deps, &got)
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tc.wantCode != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.wantCode, exitCodeOf(err), "%v", err)
				assert.Nil(t, got, "runF must not run")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got, "runF ran")
			tc.want(t, got)
		})
	}
}

// TestPayNextCLI runs `pay` and `next` against a real in-process server: a
// decline and a 3DS challenge are answers (exit 0), a 504 exits 1 naming the
// payment, --manual prints the attempt, and "decline once, then succeed on
// the retry" is one `next` away.
func TestPayNextCLI(t *testing.T) {
	cfg := testConfig()
	cfg.RequestTimeout = 300 * time.Millisecond // the gateway-timeout rule holds the caller this long
	a := startApp(t, cfg)
	a.useNewTenant()
	jsonOf := func(t *testing.T, s string) map[string]any {
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(s))
		require.NoError(t, dec.Decode(&v), "stdout: %s", s)
		_, err := dec.Token()
		require.ErrorIs(t, err, io.EOF, "exactly one JSON document on stdout")
		return v
	}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		check    func(t *testing.T, stdout string)
		stderr   string // prefix of the one error line ("": stderr empty)
	}{
		{name: "pay table", args: []string{"pay", "--amount", "1999", "--customer", "cust-9", "--order", "o-table"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^status\s+AUTHORIZED$`, s)
				assert.Regexp(t, `(?m)^amount\s+1999$`, s)
				assert.Regexp(t, `(?m)^orderId\s+o-table$`, s)
				assert.Regexp(t, `(?m)^customerId\s+cust-9$`, s)
				assert.Regexp(t, `(?m)^SALE\s+STRIPE\s+AUTHORIZED\s+1999\s`, s)
			}},
		{name: "pay json with metadata", args: []string{"pay", "--currency", "USD", "--metadata", "k=v", "-o", "json"},
			check: func(t *testing.T, s string) {
				v := jsonOf(t, s)
				assert.Equal(t, "AUTHORIZED", v["status"])
				assert.Equal(t, "USD", v["currencyCode"])
				assert.Equal(t, map[string]any{"k": "v"}, v["metadata"])
				assert.True(t, strings.HasPrefix(v["orderId"].(string), "cli-"), "a fresh order id")
			}},
		{name: "a decline is an answer", args: []string{"pay", "--card", numDecline, "-o", "json"},
			check: func(t *testing.T, s string) {
				v := jsonOf(t, s)
				assert.Equal(t, "DECLINED", v["status"])
				assert.Equal(t, "DO_NOT_HONOR", dig(v, "statusReason", "code"))
			}},
		{name: "a 3DS card is PENDING with its required action", args: []string{"pay", "--card", numChallenge},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^status\s+PENDING$`, s)
				assert.Regexp(t, `(?m)^requiredAction\.name\s+3DS_AUTHENTICATION$`, s)
				assert.Regexp(t, `(?m)^requiredAction\.challengeUrl\s+http://127\.0\.0\.1:\d+/`, s, "where the shopper answers it")
			}},
		{name: "a 504 exits 1 naming the payment", args: []string{"pay", "--amount", "5040", "--order", "o-504"}, wantCode: 1,
			stderr: "Error: RequestTimeout: ",
			check:  func(t *testing.T, s string) { assert.Empty(t, s, "nothing on stdout on failure") }},
		{name: "a refused card is an API error", args: []string{"pay", "--card", "1234"}, wantCode: 1, stderr: "Error: RequestValidationError: "},
		{name: "manual prints the attempt", args: []string{"pay", "--manual", "-o", "json"},
			check: func(t *testing.T, s string) {
				v := jsonOf(t, s)
				assert.Equal(t, "AWAITING_APPROVAL", v["status"])
				assert.NotEmpty(t, v["paymentAttemptId"])
				assert.Nil(t, v["paymentId"])
			}},
		{name: "manual table", args: []string{"pay", "--manual"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^paymentAttemptId\s+[0-9a-f-]{36}$`, s)
				assert.Regexp(t, `(?m)^status\s+AWAITING_APPROVAL$`, s)
			}},
		{name: "--api-version is sent", args: []string{"pay", "--api-version", "9.9"}, wantCode: 1, stderr: "Error: UnsupportedApiVersion: "},
		{name: "PAYSANDBOX_API_VERSION is sent", args: []string{"payments", "list"}, env: map[string]string{"PAYSANDBOX_API_VERSION": "9.9"}, wantCode: 1, stderr: "Error: UnsupportedApiVersion: "},
		{name: "next shows nothing pending", args: []string{"next"},
			check: func(t *testing.T, s string) { assert.Equal(t, "nothing pending: payments follow the rules\n", s) }},
		{name: "next RULE", args: []string{"next", "generic-decline"},
			check: func(t *testing.T, s string) {
				assert.Regexp(t, `(?m)^rule\s+generic-decline$`, s)
				assert.Regexp(t, `(?m)^remaining\s+1$`, s)
				assert.Regexp(t, `(?m)^holdsFor\s+0s$`, s)
			}},
		{name: "explain shows the one-shot", args: []string{"scenarios", "explain", "--amount", "1000", "--card", numOK},
			check: func(t *testing.T, s string) {
				assert.Contains(t, s, "matched: generic-decline\n")
				assert.Contains(t, s, "next: one-shot generic-decline for 1 more payment(s)")
			}},
		{name: "the next payment is declined", args: []string{"pay", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "DECLINED", jsonOf(t, s)["status"]) }},
		{name: "the retry succeeds", args: []string{"pay", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "AUTHORIZED", jsonOf(t, s)["status"]) }},
		{name: "next json after", args: []string{"next", "-o", "json"},
			check: func(t *testing.T, s string) {
				assert.Equal(t, map[string]any{"rule": nil, "remaining": float64(0)}, jsonOf(t, s))
			}},
		{name: "next --times and --clear", args: []string{"next", "generic-fail", "--times", "4", "-o", "json"},
			check: func(t *testing.T, s string) {
				assert.Equal(t, map[string]any{"rule": "generic-fail", "remaining": float64(4), "holdsFor": "0s"}, jsonOf(t, s))
			}},
		{name: "next --clear", args: []string{"next", "--clear"},
			check: func(t *testing.T, s string) { assert.Equal(t, "nothing pending: payments follow the rules\n", s) }},
		{name: "next unknown rule lists the rules", args: []string{"next", "nope"}, wantCode: 1,
			stderr: "Error: RequestValidationError: We were unable to validate your request, please check your payload against the validationErrors listed ($.rule: \"nope\" is not a rule of the scenarios in force (the rules are: expired-card, generic-decline, "},
		{name: "next with a typo suggests the rule", args: []string{"next", "genric-decline"}, wantCode: 1,
			stderr: "Error: RequestValidationError: We were unable to validate your request, please check your payload against the validationErrors listed ($.rule: \"genric-decline\" is not a rule of the scenarios in force; did you mean `generic-decline`? (the rules are: expired-card, generic-decline, "},
		{name: "next gateway-timeout holds for the request timeout", args: []string{"next", "gateway-timeout", "-o", "json"},
			check: func(t *testing.T, s string) { assert.Equal(t, "300ms", jsonOf(t, s)["holdsFor"]) }},
		{name: "next --clear again", args: []string{"next", "--clear"},
			check: func(t *testing.T, s string) { assert.Equal(t, "nothing pending: payments follow the rules\n", s) }},
		{name: "next --times 0 is the server's 422", args: []string{"next", "generic-fail", "--times", "0"}, wantCode: 1,
			stderr: "Error: RequestValidationError: We were unable to validate your request, please check your payload against the validationErrors listed ($.times: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, a, tc.env, tc.args...)
			assert.Equal(t, tc.wantCode, code, "stdout: %s\nstderr: %s", stdout, stderr)
			if tc.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.True(t, strings.HasPrefix(stderr, tc.stderr), "stderr %q does not start with %q", stderr, tc.stderr)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one error line")
			}
			if tc.check != nil {
				tc.check(t, stdout)
			}
		})
	}

	t.Run("the 504's payment is named once, with a command that works as printed", func(t *testing.T) {
		code, _, stderr := cliRun(t, a, nil, "pay", "--amount", "5040", "--order", "o-504b")
		require.Equal(t, 1, code)
		id := paymentOfOrder(t, a, "o-504b")
		assert.Equal(t, 1, strings.Count(stderr, id), "the payment id once: %s", stderr)
		// The rule resolves 2m after creation on the tenant clock: past a
		// wait's reach, so the clock is advanced first.
		runSuggested(t, a, stderr, `the payment is PENDING and becomes AUTHORIZED in 2m0s on the tenant clock; to get there now: (paysandbox clock advance 2m0s && paysandbox payments wait `+id+` --status AUTHORIZED)\n$`)
		assert.Equal(t, "AUTHORIZED", a.must(200, "GET", "/payments/"+id, nil).Str("status"))
	})

	t.Run("a client-side timeout finds the payment by its order", func(t *testing.T) {
		out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
		deps := &cliDeps{Out: out, Err: errOut, Getenv: func(k string) string {
			return map[string]string{"PAYSANDBOX_URL": a.URL(), "PAYSANDBOX_API_KEY": a.Key}[k]
		}, HTTP: &http.Client{Timeout: 100 * time.Millisecond}}
		root := &cobra.Command{Use: "paysandbox", SilenceErrors: true, SilenceUsage: true}
		addClientCommands(root, deps)
		root.SetArgs([]string{"pay", "--amount", "5040", "--order", "o-504c"})
		code := reportError(errOut, root.Execute())
		require.Equal(t, 1, code, "stdout: %s", out)
		id := paymentOfOrder(t, a, "o-504c")
		assert.True(t, strings.HasPrefix(errOut.String(), "Error: RequestTimeout: no answer from the sandbox"), errOut.String())
		assert.Equal(t, 1, strings.Count(errOut.String(), id), "the payment id once: %s", errOut.String())
		assert.Contains(t, errOut.String(), "paysandbox payments wait "+id+" --status AUTHORIZED")
	})
}

// runSuggested finds the follow-up command in a `pay` error (the first
// group of the regular expression re, `&&`-joined commands) and runs each
// as printed against a: each must succeed.
func runSuggested(t *testing.T, a *testApp, stderr, re string) {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(stderr)
	require.NotNil(t, m, "stderr %q does not match %s", stderr, re)
	for _, line := range strings.Split(m[1], " && ") {
		args := strings.Fields(line)
		require.Equal(t, "paysandbox", args[0])
		code, stdout, errOut := cliRun(t, a, nil, args[1:]...)
		require.Equal(t, 0, code, "%s:\n%s%s", line, stdout, errOut)
	}
}

// TestPayTimeoutWaitsForIt: a 504 whose payment resolves within a wait's
// reach suggests `payments wait` with a --timeout that covers it, and the
// command works as printed on the tenant's real clock.
func TestPayTimeoutWaitsForIt(t *testing.T) {
	cfg := testConfig()
	cfg.RequestTimeout = 300 * time.Millisecond
	app, err := Open(cfg, AppOptions{LogOut: io.Discard}) // the real clock: the payment resolves on its own
	require.NoError(t, err)
	require.NoError(t, app.Start())
	t.Cleanup(func() { _ = app.Close() })
	a := &testApp{App: app, t: t, Key: simulator.DefaultAPIKey, http: &http.Client{Timeout: 30 * time.Second}}
	a.useNewTenant()
	a.must(200, "PUT", "/_sandbox/scenarios", "version: 1\nrules:\n  - name: soon\n    when: { amount: 5555 }\n    timeout: { resolveTo: DECLINED, after: 2s }\n",
		"Content-Type: application/yaml")
	code, _, stderr := cliRun(t, a, nil, "pay", "--amount", "5555", "--order", "o-504s")
	require.Equal(t, 1, code)
	id := paymentOfOrder(t, a, "o-504s")
	assert.Equal(t, 1, strings.Count(stderr, id), "the payment id once: %s", stderr)
	runSuggested(t, a, stderr, `the payment is PENDING and becomes DECLINED in [12]s on the tenant clock: (paysandbox payments wait `+id+` --status DECLINED --timeout [67]s)\n$`)
}

// TestPayNotesHeldRequest: a payment request that goes NoteAfter without an
// answer gets a note on stderr: how long the sandbox holds it and why.
func TestPayNotesHeldRequest(t *testing.T) {
	a := startApp(t, testConfig())
	a.useNewTenant()
	a.must(200, "PUT", "/_sandbox/scenarios", `version: 1
rules:
  - name: held
    when: { amount: 5555 }
    timeout: { resolveTo: AUTHORIZED, after: 1m, holdFor: 1s }
  - name: slow
    when: { amount: 5556 }
    latency: 1s
`, "Content-Type: application/yaml")
	for _, tc := range []struct {
		amount   string
		wantCode int
		note     string
	}{
		{"5555", 1, "paysandbox: no answer after 10ms: the sandbox holds this request up to 1s. Rule held (amount 5555 is 5555) is a gateway timeout: it answers 504 after its holdFor, else the server's request timeout, and the payment becomes AUTHORIZED 1m0s later on the tenant clock.\n"},
		{"5556", 0, "paysandbox: no answer after 10ms: the sandbox holds this request up to 1s. Rule slow (not decided until its latency ends) adds that latency.\n"},
		{"1000", 0, ""},
	} {
		t.Run(tc.amount, func(t *testing.T) {
			out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
			deps := &cliDeps{Out: out, Err: errOut, Getenv: func(k string) string {
				return map[string]string{"PAYSANDBOX_URL": a.URL(), "PAYSANDBOX_API_KEY": a.Key}[k]
			}, HTTP: &http.Client{}}
			cmd := newPayCmd(deps, func(o *payOptions) error {
				if tc.note != "" {
					o.NoteAfter = 10 * time.Millisecond
				}
				return runPay(t.Context(), o)
			})
			cmd.SetArgs([]string{"--amount", tc.amount})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			code := reportError(errOut, cmd.Execute())
			assert.Equal(t, tc.wantCode, code, "stdout: %s", out)
			if tc.note == "" {
				assert.Empty(t, errOut.String())
				return
			}
			assert.True(t, strings.HasPrefix(errOut.String(), tc.note), "stderr: %s", errOut)
		})
	}
}

// paymentOfOrder is the id of the one payment of an order.
func paymentOfOrder(t *testing.T, a *testApp, order string) string {
	t.Helper()
	page := a.must(200, "GET", "/payments?order_id="+order, nil)
	data, _ := page.JSON["data"].([]any)
	require.Len(t, data, 1, "%s", page.Body)
	return dig(data[0], "id").(string)
}
