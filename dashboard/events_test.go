package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// stream is one open event stream read line by line.
type stream struct {
	t   *testing.T
	res *http.Response
	rd  *bufio.Reader
	end context.CancelFunc
}

// openStream opens the events of topic with client c; the stream ends with
// the test or with close.
func (e *env) openStream(t *testing.T, c *http.Client, query string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+Prefix+"/events?"+query, nil)
	require.NoError(t, err)
	res, err := c.Do(req)
	require.NoError(t, err)
	s := &stream{t: t, res: res, rd: bufio.NewReader(res.Body), end: cancel}
	t.Cleanup(s.close)
	return s
}

func (s *stream) close() { s.end(); s.res.Body.Close() }

// next is the next event name, or ": keep-alive" for a keep-alive comment.
func (s *stream) next() string {
	s.t.Helper()
	for {
		line, err := s.rd.ReadString('\n')
		require.NoError(s.t, err)
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "event: "):
			return strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, ": "):
			return line
		}
	}
}

// clientAs is a new browser (its own cookie jar) signed in with key.
func (e *env) clientAs(t *testing.T, key string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+Prefix+"/login", strings.NewReader(url.Values{"apiKey": {key}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.srv.URL)
	res, err := c.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return c
}

// TestEventsStreamsShareTheHeldCap: a dashboard stream is one of the tenant's
// held requests, like a long-poll: past the cap it is refused with the API's
// error envelope (429 TooManyRequests, connection closed), long-polls count
// against the same cap, other tenants keep theirs, and a closed stream gives
// its slot back.
func TestEventsStreamsShareTheHeldCap(t *testing.T) {
	e := newEnvConfig(t, Options{}, service.Config{MaxHeldPerTenant: 2})
	acme := e.clientAs(t, testKey)
	p := e.pay(e.tenant, 100, cardOK, "o", "c")

	first := e.openStream(t, acme, "topic=payments")
	require.Equal(t, http.StatusOK, first.res.StatusCode)
	require.Equal(t, "ready", first.next())
	second := e.openStream(t, acme, "topic=payment:"+p.ID)
	require.Equal(t, "ready", second.next())
	require.Equal(t, 2, e.svc.Held().Open(e.tenant.ID))

	t.Run("the stream past the cap is 429 TooManyRequests", func(t *testing.T) {
		res, err := acme.Get(e.srv.URL + Prefix + "/events?topic=attempts")
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
		assert.True(t, res.Close, "the refused stream does not keep its connection")
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var body struct {
			Error struct {
				ErrorID, Description, RecoverySuggestion string
			}
		}
		b, _ := io.ReadAll(res.Body)
		require.NoError(t, json.Unmarshal(b, &body), string(b))
		assert.Equal(t, "TooManyRequests", body.Error.ErrorID)
		assert.Contains(t, body.Error.Description, "2 open long-polls or streams")
		assert.NotEmpty(t, body.Error.RecoverySuggestion)
	})
	t.Run("a long-poll shares the cap", func(t *testing.T) {
		_, err := e.svc.WaitForStatus(context.Background(), e.tenant, p.ID, simulator.StatusSettled, time.Minute)
		var se *simulator.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, simulator.CodeTooManyRequests, se.Code)
	})
	t.Run("another tenant keeps its own share", func(t *testing.T) {
		other := e.openStream(t, e.clientAs(t, "other-key"), "topic=payments")
		assert.Equal(t, http.StatusOK, other.res.StatusCode)
		assert.Equal(t, "ready", other.next())
	})
	t.Run("a closed stream gives its slot back", func(t *testing.T) {
		first.close()
		require.Eventually(t, func() bool { return e.svc.Held().Open(e.tenant.ID) == 1 }, 10*time.Second, 5*time.Millisecond)
		again := e.openStream(t, acme, "topic=payments")
		assert.Equal(t, http.StatusOK, again.res.StatusCode)
		assert.Equal(t, "ready", again.next())
	})
}

// TestEventsStreamLooksOnlyAfterAChange: a stream looks at its view's data
// once when it connects and then only after its tenant changed: idle cycles
// (keep-alives) and other tenants' writes run no query; a change of its
// tenant does, and is reported; a change within PollInterval of the last
// look waits for it (a burst costs one look).
func TestEventsStreamLooksOnlyAfterAChange(t *testing.T) {
	tests := []struct {
		name  string
		poll  time.Duration
		write bool // a write of the stream's tenant after the idle cycles
		// want is the looks after the idle cycles (and the write, if any).
		want int64
	}{
		{"idle and other tenants' writes: no look", 10 * time.Millisecond, false, 1},
		{"a change within PollInterval of the last look waits", time.Hour, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Options{PollInterval: tc.poll})
			e.ui.keepAlive = time.Millisecond
			for range 3 {
				e.pay(e.tenant, 100, cardOK, "o", "c")
			}
			other, err := e.svc.Tenant("other")
			require.NoError(t, err)
			s := e.openStream(t, e.clientAs(t, testKey), "topic=payments")
			require.Equal(t, "ready", s.next())
			require.Equal(t, int64(1), e.ui.looks.Load(), "one look when it connects")
			for range 3 {
				e.pay(other, 100, cardOK, "o", "c")
			}
			if tc.write {
				e.pay(e.tenant, 100, cardOK, "o", "c")
			}
			for range 5 { // idle cycles
				require.Equal(t, ": keep-alive", s.next())
			}
			assert.Equal(t, tc.want, e.ui.looks.Load())
		})
	}
	t.Run("a change of its tenant is looked at and reported", func(t *testing.T) {
		e := newEnv(t, Options{})
		e.ui.keepAlive = time.Hour
		s := e.openStream(t, e.clientAs(t, testKey), "topic=payments")
		require.Equal(t, "ready", s.next())
		e.pay(e.tenant, 100, cardOK, "o", "c")
		assert.Equal(t, "change", s.next())
		assert.GreaterOrEqual(t, e.ui.looks.Load(), int64(2))
	})
}

// TestEventsStreamEndsAtShutdown: the shutdown of held requests
// (service.Held.Stop, which httpapi.Server.Drain calls) ends open streams
// at once, as it answers open long-polls.
func TestEventsStreamEndsAtShutdown(t *testing.T) {
	e := newEnv(t, Options{})
	e.ui.keepAlive = time.Hour
	s := e.openStream(t, e.clientAs(t, testKey), "topic=payments")
	require.Equal(t, "ready", s.next())
	e.svc.Held().Stop()
	_, err := io.ReadAll(s.rd)
	require.NoError(t, err, "the stream ended (EOF) instead of waiting")
	require.Eventually(t, func() bool { return e.svc.Held().Open(e.tenant.ID) == 0 }, 10*time.Second, 5*time.Millisecond)
}
