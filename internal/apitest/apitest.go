// Package apitest is the harness the end-to-end tests of the merchant API
// share (cmd/paysandbox against the whole App, simulator/httpapi against the
// echo server): a request with the API key and version set, the answer with
// its decoded JSON, and golden files of answers (AssertGolden, with the
// -update flag it registers). Only tests import it.
package apitest

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Resp is an answer with its decoded JSON body.
type Resp struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// ErrorID is error.errorId of an error body, "" otherwise.
func (r *Resp) ErrorID() string {
	s, _ := r.Err()["errorId"].(string)
	return s
}

// Str reads a top-level string field.
func (r *Resp) Str(key string) string { s, _ := r.JSON[key].(string); return s }

// Err reads the error object.
func (r *Resp) Err() map[string]any { e, _ := r.JSON["error"].(map[string]any); return e }

// Client sends requests to the server at URL with Key.
type Client struct {
	T    testing.TB
	HTTP *http.Client
	URL  string
	Key  string
}

// Req sends a request. body: nil (no body), string or []byte (raw), else
// JSON. headers are "Name: value" pairs; the API key and version 2.4 are
// sent unless overridden (an empty value removes the header).
func (c Client) Req(method, path string, body any, headers ...string) *Resp {
	c.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(c.T, err)
		rd = bytes.NewReader(raw)
	}
	r, err := http.NewRequest(method, c.URL+path, rd)
	require.NoError(c.T, err)
	r.Header.Set("X-API-KEY", c.Key)
	r.Header.Set("X-API-VERSION", "2.4")
	if rd != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	res, err := c.HTTP.Do(r)
	require.NoError(c.T, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(c.T, err)
	out := &Resp{Status: res.StatusCode, Header: res.Header, Body: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		require.NoError(c.T, json.Unmarshal(raw, &out.JSON), "body: %s", raw)
	}
	return out
}

// update rewrites golden files: go test ./cmd/paysandbox -run X -update
// (or ./simulator/httpapi).
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// AssertGolden compares body (re-indented, scrubbed by Scrub) with
// testdata/<name>.json of the test's package; -update rewrites it.
func AssertGolden(t testing.TB, name string, body []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	Scrub(v)
	got, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run with -update")
	require.Equal(t, string(want), string(got), "golden %s differs (run with -update if intended)", path)
}

// Scrub replaces in a decoded JSON value what differs per run: diagnostics
// ids, and the server's free port in URLs (http://127.0.0.1:PORT/... becomes
// http://HOST/...).
func Scrub(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == "diagnosticsId" {
				x[k] = "<diagnosticsId>"
				continue
			}
			if s, ok := val.(string); ok && strings.HasPrefix(s, "http://127.0.0.1:") {
				x[k] = "http://HOST" + s[strings.IndexByte(s[len("http://"):], '/')+len("http://"):]
				continue
			}
			Scrub(val)
		}
	case []any:
		for _, val := range x {
			Scrub(val)
		}
	}
}

// SyncBuffer is a bytes.Buffer that server goroutines write to (a log
// sink, a child process's output) while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
