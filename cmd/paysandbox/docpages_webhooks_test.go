package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

var snippetRE = regexp.MustCompile("(?s)<!-- webhook-snippet:(\\w+) -->\\s*```\\w+\\n(.*?)```")

// TestDocSignatureSnippets runs each verification snippet of the docs as
// the sandbox's webhook endpoint: real deliveries must be accepted (2xx)
// and a tampered one refused. Go always runs; Node.js and Python where
// their runtime is installed.
func TestDocSignatureSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs external programs")
	}
	snippets := map[string]string{}
	for _, page := range docPages(t) {
		for _, m := range snippetRE.FindAllStringSubmatch(string(readPage(t, page)), -1) {
			require.NotContains(t, snippets, m[1], "one %s snippet in the docs (again in %s)", m[1], page)
			snippets[m[1]] = m[2]
		}
	}
	require.Len(t, snippets, 3, "go, node and python snippets")
	runners := map[string]struct{ file, bin string }{
		"go": {"main.go", "go"}, "node": {"handler.js", "node"}, "python": {"handler.py", "python3"},
	}
	for lang, src := range snippets {
		t.Run(lang, func(t *testing.T) {
			r := runners[lang]
			bin, err := exec.LookPath(r.bin)
			if err != nil {
				if lang == "go" {
					t.Fatal("go must be on PATH")
				}
				t.Skipf("%s is not installed", r.bin)
			}
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, r.file), []byte(src), 0o644))
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			port := ln.Addr().(*net.TCPAddr).Port
			require.NoError(t, ln.Close())
			cmd := exec.Command(bin, filepath.Join(dir, r.file))
			if lang == "go" { // build, then run the handler itself (go run leaves its child behind on kill)
				out, err := exec.Command(bin, "build", "-o", filepath.Join(dir, "handler"), filepath.Join(dir, r.file)).CombinedOutput()
				require.NoError(t, err, "the Go snippet compiles: %s", out)
				cmd = exec.Command(filepath.Join(dir, "handler"))
			}
			cmd.WaitDelay = 2 * time.Second
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PAYSANDBOX_SIGNING_SECRET="+simulator.DefaultSigningSecret, "PORT="+itoa(port), "GOFLAGS=")
			stderr := &apitest.SyncBuffer{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			url := "http://127.0.0.1:" + itoa(port) + "/webhooks"
			deadline := time.Now().Add(20 * time.Second)
			for {
				c, err := net.Dial("tcp", "127.0.0.1:"+itoa(port))
				if err == nil {
					c.Close()
					break
				}
				require.True(t, time.Now().Before(deadline), "the %s handler did not start: %s", lang, stderr.String())
				time.Sleep(20 * time.Millisecond)
			}

			a := newTestApp(t)
			a.setEndpoint(url)
			pid := a.pay(1000, "4111111111111111").Str("id")
			a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
			a.advance("1ns")
			for _, ev := range a.events(pid) {
				assert.Equal(t, "DELIVERED", ev["status"], "the %s handler accepts the sandbox's signature", lang)
			}
			secret := a.must(200, "POST", "/_sandbox/webhooks/rotate-secret", nil).Str("signingSecret")
			require.NotEmpty(t, secret)
			a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{})
			a.must(200, "POST", "/_sandbox/webhooks/deliver", nil)
			a.advance("1ns")
			for _, ev := range a.events(pid) {
				assert.Equal(t, "DELIVERED", ev["status"], "after a rotation the old secret checks X-Signature-Secondary")
			}

			body := []byte(`{"eventType":"PAYMENT.STATUS"}`)
			for _, sig := range []string{webhooks.Sign("wrong", body), ""} {
				req, err := http.NewRequest("POST", url, bytes.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				if sig != "" {
					req.Header.Set("X-Signature-Primary", sig)
				}
				res, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				res.Body.Close()
				assert.Equal(t, 401, res.StatusCode, "a bad signature is refused (%q)", strings.TrimSpace(sig))
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
