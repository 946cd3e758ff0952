package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

func TestWebhooksVerifyCmd(t *testing.T) {
	body := `{"eventType":"PAYMENT.STATUS","signedAt":"1795332600"}`
	sig := webhooks.Sign("whsec_x", []byte(body))
	file := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(file, []byte(body), 0o644))
	cases := []struct {
		name    string
		args    []string
		stdin   string
		env     map[string]string
		wantErr string
	}{
		{"file, valid", []string{"--secret", "whsec_x", "--signature", sig, file}, "", nil, ""},
		{"stdin, valid", []string{"--secret", "whsec_x", "--signature", sig}, body, nil, ""},
		{"wrong secret", []string{"--secret", "other", "--signature", sig, file}, "", nil, "does not match"},
		{"changed body", []string{"--secret", "whsec_x", "--signature", sig}, body + "\n", nil, "does not match"},
		{"not base64", []string{"--secret", "whsec_x", "--signature", "%%", file}, "", nil, "not base64"},
		{"missing file", []string{"--secret", "whsec_x", "--signature", sig, file + ".nope"}, "", nil, "reading the body"},
		{"secret from PAYSANDBOX_SIGNING_SECRET", []string{"--signature", sig, file}, "", map[string]string{"PAYSANDBOX_SIGNING_SECRET": "whsec_x"}, ""},
		{"--secret wins over the environment", []string{"--secret", "whsec_x", "--signature", sig, file}, "", map[string]string{"PAYSANDBOX_SIGNING_SECRET": "other"}, ""},
		{"no secret anywhere: the default tenant's", []string{"--signature", sig, file}, "", nil, "does not match"},
		{"no signature flag", []string{"--secret", "whsec_x", file}, "", nil, "--signature is required (or --event ID)"},
		{"--event and FILE", []string{"--event", "e", file}, "", nil, "give FILE or --event, not both"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newWebhooksVerifyCmd(&cliDeps{Getenv: func(k string) string { return tc.env[k] }})
			var out, errOut bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetIn(strings.NewReader(tc.stdin))
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, "valid\n", out.String())
				return
			}
			require.Error(t, err, "exit 1")
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestWebhooksListenPrintsDeliveries(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	out := &apitest.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runWebhooksListen(ctx, ln, &webhooksListenOptions{Secret: "whsec_x", Answer: 200}, out)
	}()

	send := func(body, secret string) {
		req, err := http.NewRequest("POST", "http://"+ln.Addr().String()+"/", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Signature-Primary", webhooks.Sign(secret, []byte(body)))
		req.Header.Set("X-Event-Id", "ev-1")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode)
	}
	send(`{"eventType":"PAYMENT.STATUS","payment":{"id":"pay1","status":"AUTHORIZED"}}`, "whsec_x")
	send(`{"eventType":"DISPUTE.STATUS","paymentId":"pay2","status":"WON"}`, "wrong")
	cancel()
	require.NoError(t, <-done)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[1], "PAYMENT.STATUS")
	assert.Contains(t, lines[1], "payment=pay1 status=AUTHORIZED event=ev-1")
	assert.Contains(t, lines[1], "signature valid")
	assert.Contains(t, lines[2], "DISPUTE.STATUS")
	assert.Contains(t, lines[2], "payment=pay2 status=WON")
	assert.Contains(t, lines[2], "signature INVALID")
	assert.Contains(t, lines[2], "this tenant's signingSecret?", "a mismatch says what to check")
}

func TestWebhooksListenFlags(t *testing.T) {
	for _, args := range [][]string{{"--port", "70000"}, {"--answer", "42"}, {"extra"}} {
		cmd := newWebhooksListenCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		assert.Error(t, cmd.Execute(), "%v", args)
	}
}

// TestWebhooksVerifyExample runs each line of `webhooks verify --help`'s
// example, as printed but for its placeholders, against a real server and
// a real delivery: each says valid. The events API's /body answers the
// exact bytes the receiver got.
func TestWebhooksVerifyExample(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the example needs curl")
	}
	a := newTestApp(t) // the default tenant: the example's key and secret
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	pid := a.pay(1000, numOK).Str("id")
	ev := a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.STATUS&status=DELIVERED&timeout=10s", nil)
	id := ev.Str("id")
	var sent delivery
	for _, d := range rc.deliveries() {
		if d.Header.Get("X-Event-Id") == id {
			sent = d
		}
	}
	require.NotEmpty(t, sent.Body)
	assert.Equal(t, sent.Body, a.must(200, "GET", "/_sandbox/webhooks/events/"+id+"/body", nil).Body, "the exact bytes sent")
	assert.Equal(t, 404, a.req("GET", "/_sandbox/webhooks/events/nope/body", nil).Status)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "body.json"), sent.Body, 0o644))
	u, err := url.Parse(a.URL())
	require.NoError(t, err)
	env := append(os.Environ(), cliOnPathEnv, "PATH="+cliOnPath(t)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PAYSANDBOX_URL="+a.URL(), "EVENT_ID="+id, "SIG="+sent.Header.Get("X-Signature-Primary"))
	lines := strings.Split(webhooksVerifyExample, "\n")
	require.Len(t, lines, 4)
	for _, line := range lines {
		line = strings.TrimSpace(line)
		t.Run(line, func(t *testing.T) {
			line = strings.NewReplacer("localhost:8080", u.Host, "whsec_...", simulator.DefaultSigningSecret).Replace(line)
			cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+line)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, "valid\n", string(out))
		})
	}

	t.Run("the signature of another body fails", func(t *testing.T) {
		code, _, stderr := cliRun(t, a, nil, "webhooks", "verify", "--event", id, "--signature", webhooks.Sign(simulator.DefaultSigningSecret, []byte("{}")))
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "Error: InvalidSignature: ")
	})
}
