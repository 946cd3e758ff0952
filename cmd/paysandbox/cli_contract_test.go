package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestCLIContract runs the commands on routes other work serves (webhooks,
// disputes, scenarios) against an httptest server that checks the method,
// path, query, headers and body docs/control-plane.md gives, and answers its
// shapes.
func TestCLIContract(t *testing.T) {
	yamlFile := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(yamlFile, []byte("rules: []\n"), 0o600))
	event := `{"id":"evt-1","eventType":"PAYMENT.STATUS","paymentId":"pay1","createdAt":"2026-11-22T07:30:00.000000Z","status":"DELIVERED","attempts":[{"at":"2026-11-22T07:30:00.000000Z","statusCode":200,"latencyMs":3,"error":""}]}`
	explain := `{"matched":"big-amounts","rules":[{"name":"big-amounts","matched":true,"reason":"amount >= 4000"},{"name":"default","matched":false,"reason":"not reached"}]}`
	tests := []struct {
		name      string
		args      []string
		method    string
		path      string
		query     string // exact encoded query
		body      string // JSON the server must get ("" = no body); raw for YAML
		bodyType  string
		status    int
		answer    string
		wantCode  int
		wantOut   string // substring of stdout
		wantError string // stderr prefix
	}{
		{name: "webhooks list", args: []string{"webhooks", "list", "--payment", "pay1", "--type", "PAYMENT.STATUS"},
			method: "GET", path: "/_sandbox/webhooks/events", query: "paymentId=pay1&type=PAYMENT.STATUS",
			answer: `{"data":[` + event + `]}`, wantOut: "evt-1"},
		{name: "webhooks get", args: []string{"webhooks", "get", "evt-1"}, method: "GET", path: "/_sandbox/webhooks/events/evt-1",
			answer: event, wantOut: "DELIVERED"},
		{name: "webhooks get: a replayed attempt is marked", args: []string{"webhooks", "get", "evt-1"}, method: "GET", path: "/_sandbox/webhooks/events/evt-1",
			answer:  `{"id":"evt-1","eventType":"PAYMENT.STATUS","status":"DELIVERED","attempts":[{"at":"2026-11-22T07:30:00.000000Z","statusCode":200,"latencyMs":3,"error":""},{"at":"2026-11-22T07:31:00.000000Z","statusCode":200,"latencyMs":2,"error":"","replay":true}]}`,
			wantOut: "2026-11-22T07:31:00.000000Z  200         2          -      true    -"},
		{name: "webhooks get json", args: []string{"webhooks", "get", "evt-1", "-o", "json"}, method: "GET", path: "/_sandbox/webhooks/events/evt-1",
			answer: event, wantOut: `"eventType": "PAYMENT.STATUS"`},
		{name: "webhooks deliver", args: []string{"webhooks", "deliver"}, method: "POST", path: "/_sandbox/webhooks/deliver",
			answer: `{"delivered":2,"failed":1}`, wantOut: "delivered"},
		{name: "webhooks replay", args: []string{"webhooks", "replay", "evt-1"}, method: "POST", path: "/_sandbox/webhooks/events/evt-1/replay",
			answer: `{"at":"2026-11-22T07:30:00.000000Z","statusCode":500,"latencyMs":2,"error":"HTTP 500"}`, wantOut: "500"},
		{name: "webhooks endpoint set", args: []string{"webhooks", "endpoint", "set", "http://h:9/x"}, method: "PUT", path: "/_sandbox/webhooks/endpoint",
			body: `{"url":"http://h:9/x"}`, answer: `{"url":"http://h:9/x"}`, wantOut: "http://h:9/x"},
		{name: "webhooks endpoint set with a version", args: []string{"webhooks", "endpoint", "set", "http://h:9/x", "--version", "2.2"}, method: "PUT", path: "/_sandbox/webhooks/endpoint",
			body: `{"url":"http://h:9/x","version":"2.2"}`, answer: `{"url":"http://h:9/x","version":"2.2"}`, wantOut: "version  2.2"},
		{name: "webhooks endpoint show", args: []string{"webhooks", "endpoint", "show"}, method: "GET", path: "/_sandbox/webhooks/endpoint",
			answer: `{"url":"http://h:9/x","version":"2.4"}`, wantOut: "version  2.4"},
		{name: "webhooks rotate-secret", args: []string{"webhooks", "rotate-secret", "-o", "json"}, method: "POST", path: "/_sandbox/webhooks/rotate-secret",
			answer: `{"signingSecret":"whsec_new"}`, wantOut: `"signingSecret": "whsec_new"`},
		{name: "webhooks chaos", args: []string{"webhooks", "chaos", "--duplicate", "0.2", "--reorder", "--delay", "2s", "--seed", "42"},
			method: "PUT", path: "/_sandbox/webhooks/chaos", body: `{"delay":"2s","duplicate":0.2,"reorder":true,"seed":42}`,
			answer: `{"delay":"2s","duplicate":0.2,"reorder":true,"seed":42}`, wantOut: "seed"},
		{name: "webhooks chaos off", args: []string{"webhooks", "chaos", "off"}, method: "PUT", path: "/_sandbox/webhooks/chaos", body: `{}`, answer: `{}`},
		{name: "webhooks wait", args: []string{"webhooks", "wait", "--payment", "pay1", "--type", "DISPUTE.OPENED", "--timeout", "3s"},
			method: "GET", path: "/_sandbox/webhooks/wait", query: "paymentId=pay1&status=DELIVERED&timeout=3s&type=DISPUTE.OPENED",
			answer: event, wantOut: "evt-1"},
		{name: "webhooks wait timeout", args: []string{"webhooks", "wait", "--payment", "pay1"},
			method: "GET", path: "/_sandbox/webhooks/wait", query: "paymentId=pay1&status=DELIVERED&timeout=5s", status: 408,
			answer:   `{"error":{"errorId":"WaitTimeout","description":"No event of payment pay1 was DELIVERED within 5s"}}`,
			wantCode: 1, wantError: "Error: WaitTimeout: No event of payment pay1 was DELIVERED within 5s\n"},
		{name: "disputes list", args: []string{"disputes", "list", "--payment", "pay1"}, method: "GET", path: "/_sandbox/disputes", query: "paymentId=pay1",
			answer: `{"data":[{"disputeId":"d-1","paymentId":"pay1","status":"OPEN","amount":500}]}`, wantOut: "d-1"},
		{name: "disputes set-status", args: []string{"disputes", "set-status", "d-1", "LOST", "--type", "CHARGEBACK"}, method: "POST", path: "/_sandbox/disputes/d-1/status",
			body: `{"status":"LOST","type":"CHARGEBACK"}`, answer: `{"disputeId":"d-1","paymentId":"pay1","status":"LOST"}`, wantOut: "LOST"},
		{name: "scenarios list", args: []string{"scenarios", "list"}, method: "GET", path: "/_sandbox/scenarios",
			answer: `{"rules":[{"name":"big-amounts","outcome":"DECLINED"}]}`, wantOut: "big-amounts"},
		{name: "scenarios explain payment", args: []string{"scenarios", "explain", "pay1"}, method: "GET", path: "/_sandbox/payments/pay1/explain",
			answer: explain, wantOut: "matched: big-amounts"},
		{name: "scenarios explain request", args: []string{"scenarios", "explain", "--request", "-"}, method: "POST", path: "/_sandbox/scenarios/explain",
			body: `{"amount":4001}`, answer: explain, wantOut: "amount >= 4000"},
		{name: "scenarios explain from flags", args: []string{"scenarios", "explain", "--amount", "7050", "--card", "4111111111111111", "--metadata", "refund=fail"},
			method: "POST", path: "/_sandbox/scenarios/explain",
			body: `{"amount":7050,"card":"4111111111111111","currencyCode":"EUR","metadata":{"refund":"fail"}}`, answer: explain, wantOut: "matched: big-amounts"},
		{name: "scenarios apply", args: []string{"scenarios", "apply", yamlFile}, method: "PUT", path: "/_sandbox/scenarios",
			body: "rules: []\n", bodyType: "application/yaml", answer: `{"rules":[]}`},
		{name: "scenarios apply --reset", args: []string{"scenarios", "apply", "--reset"}, method: "DELETE", path: "/_sandbox/scenarios", answer: `{"rules":[]}`},
		{name: "scenarios apply bad file", args: []string{"scenarios", "apply", "--", "bad:\n  - ["}, method: "PUT", path: "/_sandbox/scenarios", wantCode: 2,
			wantError: "Error: UsageError: cannot read"},
		{name: "webhooks endpoint set with an unknown version", args: []string{"webhooks", "endpoint", "set", "http://h:9/x", "--version", "2.0"}, wantCode: 2,
			wantError: `Error: UsageError: --version "2.0" is not one of 2.1, 2.2, 2.3, 2.4`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				assert.Equal(t, tc.method, r.Method)
				assert.Equal(t, tc.path, r.URL.Path)
				assert.Equal(t, tc.query, r.URL.RawQuery)
				assert.Equal(t, "sk_contract", r.Header.Get("X-API-KEY"))
				assert.Empty(t, r.Header.Get("X-API-VERSION"), "control routes take no version header")
				raw, _ := io.ReadAll(r.Body)
				switch {
				case tc.bodyType != "":
					assert.Equal(t, tc.bodyType, r.Header.Get("Content-Type"))
					assert.Equal(t, tc.body, string(raw))
				case tc.body != "":
					assert.JSONEq(t, tc.body, string(raw))
				default:
					assert.Empty(t, raw)
				}
				w.Header().Set("Content-Type", "application/json")
				st := tc.status
				if st == 0 {
					st = 200
				}
				w.WriteHeader(st)
				_, _ = io.WriteString(w, tc.answer)
			}))
			defer srv.Close()
			out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
			env := map[string]string{"PAYSANDBOX_URL": srv.URL, "PAYSANDBOX_API_KEY": "sk_contract"}
			deps := &cliDeps{Out: out, Err: errOut, Getenv: func(k string) string { return env[k] }}
			root := &cobra.Command{Use: "paysandbox", SilenceUsage: true}
			root.SetOut(out)
			root.SetErr(errOut)
			root.SetIn(strings.NewReader(`{"amount":4001}`))
			addClientCommands(root, deps)
			root.AddCommand(newParentCmd("scenarios", "scenario rules", "  paysandbox scenarios list",
				newScenariosListCmd(deps, nil), newScenariosExplainCmd(deps, nil), newScenariosApplyCmd(deps, nil)))
			root.SetArgs(tc.args)
			root.SilenceErrors = true
			code := reportError(errOut, root.Execute())
			assert.Equal(t, tc.wantCode, code, "stderr: %s", errOut)
			if tc.wantCode != exitUsage {
				assert.True(t, called, "the server was called")
			}
			assert.Contains(t, out.String(), tc.wantOut)
			if tc.wantError != "" {
				assert.True(t, strings.HasPrefix(errOut.String(), tc.wantError), "stderr %q", errOut)
				assert.Empty(t, out.String())
			}
			if code == exitOK && strings.Contains(strings.Join(tc.args, " "), "-o json") {
				assert.True(t, json.Valid(out.Bytes()))
			}
		})
	}
}

// TestFlagErrorsInTheFlagsTerms: a flag value that does not parse is a
// usage error that names the flag and what it takes, not Go's parser.
func TestFlagErrorsInTheFlagsTerms(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pay", "--amount", "10.00"}, `Error: UsageError: --amount "10.00" is not a whole number of minor units (1000 is 10.00 EUR) (see --help)` + "\n"},
		{[]string{"pay", "--amount", "99999999999999999999"}, `Error: UsageError: --amount "99999999999999999999" is out of range (see --help)` + "\n"},
		{[]string{"requests", "--limit", "x"}, `Error: UsageError: --limit "x" is not a whole number (see --help)` + "\n"},
		{[]string{"payments", "wait", "p", "--status", "SETTLED", "--timeout", "5"}, `Error: UsageError: --timeout "5" is not a duration such as 500ms, 30s or 2m (see --help)` + "\n"},
		{[]string{"pay", "--manual=maybe"}, `Error: UsageError: --manual "maybe" is not true or false (see --help)` + "\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runCLI(tc.args, &cliDeps{Out: &out, Err: &errOut})
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, tc.want, errOut.String())
			assert.NotContains(t, errOut.String(), "strconv")
		})
	}
}

// TestHelpHidesEnvSecrets: --help shows (set) where a secret flag's default
// comes from the environment, never the secret.
func TestHelpHidesEnvSecrets(t *testing.T) {
	env := map[string]string{"PAYSANDBOX_API_KEY": "key-from-env", "PAYSANDBOX_ADMIN_KEY": "admin-from-env", "PAYSANDBOX_SIGNING_SECRET": "secret-from-env"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	for _, args := range [][]string{{"tenants", "create", "--help"}, {"webhooks", "verify", "--help"}, {"payments", "list", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runCLI(args, &cliDeps{Out: &out, Err: &errOut})
			require.Equal(t, 0, code, errOut.String())
			help := out.String()
			for _, v := range env {
				assert.NotContains(t, help, v)
			}
			assert.Contains(t, help, `(default "(set)")`)
		})
	}
}

// TestDisputeReasons: the reasons the shipped scenarios and the dashboard
// use are simulator.DisputeReasons; `trigger dispute` keeps any other
// reason as given and warns, naming them.
func TestDisputeReasons(t *testing.T) {
	doc, err := os.ReadFile("../../scenarios.yaml")
	require.NoError(t, err)
	for _, m := range regexp.MustCompile(`dispute: \{[^}]*reason: (\w+)`).FindAllStringSubmatch(string(doc), -1) {
		assert.Contains(t, simulator.DisputeReasons, m[1], "scenarios.yaml")
	}
	page, err := os.ReadFile("../../dashboard/templates/payment.html")
	require.NoError(t, err)
	sel := regexp.MustCompile(`(?s)<select id="dis-reason".*?</select>`).FindString(string(page))
	var options []string
	for _, m := range regexp.MustCompile(`<option>(\w+)</option>`).FindAllStringSubmatch(sel, -1) {
		options = append(options, m[1])
	}
	assert.Equal(t, simulator.DisputeReasons, options, "the dashboard's dispute reasons")

	a := newTestApp(t)
	a.useNewTenant()
	pid := a.pay(1000, numOK).Str("id")
	code, stdout, stderr := cliRun(t, a, nil, "trigger", "dispute", pid, "--reason", "fraud", "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "paysandbox: reason \"fraud\" is kept as given (the vendor's reason is free text), but the shipped scenarios and the dashboard use FRAUDULENT, PRODUCT_NOT_RECEIVED, DUPLICATE, GENERAL\n", stderr)
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &d))
	code, _, stderr = cliRun(t, a, nil, "trigger", "dispute", pid, "--reason", "FRAUDULENT")
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr)
	ds := a.must(200, "GET", "/_sandbox/disputes?paymentId="+pid, nil).JSON["data"].([]any)
	var reasons []any
	for _, x := range ds {
		reasons = append(reasons, x.(map[string]any)["reason"])
	}
	assert.ElementsMatch(t, []any{"fraud", "FRAUDULENT"}, reasons, "stored as given")
}
