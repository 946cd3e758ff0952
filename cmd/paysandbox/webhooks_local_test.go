package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		{"no signature flag", []string{"--secret", "whsec_x", file}, "", nil, "required flag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newWebhooksVerifyCmd(func(k string) string { return tc.env[k] })
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
	out := &syncBuffer{}
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
