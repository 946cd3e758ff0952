package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// hangGuard bounds a wait for what must happen (never a timing assertion).
const hangGuard = 20 * time.Second

// hangingCollector accepts OTLP export requests and never answers them
// (until the test ends).
type hangingCollector struct {
	*httptest.Server
	received atomic.Int64
}

func newHangingCollector(t *testing.T) *hangingCollector {
	t.Helper()
	release := make(chan struct{})
	c := &hangingCollector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		c.received.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(c.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the handlers
	return c
}

// TestStopKeepsOneBudget: a stop (Shutdown, then Close) has one budget,
// ShutdownTimeout counted from its start. The trace exporter's flush gets
// what the shutdown left of it (a context whose deadline is the stop's),
// so a collector that accepts and never answers is given up at that
// deadline, whether budget is left (it sends, and waits no longer) or a
// held request spent it all (it gives up at once); the store's close gets the same context (it skips its shrink once
// the context is done: simulator/store's TestCloseOutOfTimeSkipsTheShrink).
func TestStopKeepsOneBudget(t *testing.T) {
	for _, held := range []bool{false, true} {
		name := map[bool]string{false: "idle", true: "a request held past the budget"}[held]
		t.Run(name, func(t *testing.T) {
			collector := newHangingCollector(t)
			cfg := testConfig()
			cfg.OtelEndpoint = collector.URL
			cfg.RequestTimeout = time.Minute // only the shutdown ends the hold
			cfg.ShutdownTimeout = 300 * time.Millisecond
			a := startApp(t, cfg)
			type flush struct {
				deadline time.Time
				set      bool
				err      error
			}
			var mu sync.Mutex
			var flushes []flush
			exporterShutdown := a.tracing.shutdown
			a.tracing.shutdown = func(ctx context.Context) error {
				d, ok := ctx.Deadline()
				err := exporterShutdown(ctx)
				mu.Lock()
				flushes = append(flushes, flush{d, ok, err})
				mu.Unlock()
				return err
			}
			a.must(200, "GET", "/_sandbox/clock", nil) // a span for the exporter to flush

			answered := make(chan int, 1)
			if held {
				inst := a.instrument(map[string]any{"orderId": "o-held", "amount": 5040, "currencyCode": "EUR"}, "4111111111111111") // 5040: held until the request timeout
				go func() {                                                                                                          // no require here: not the test's goroutine
					req, _ := http.NewRequest("POST", a.URL()+"/payments", strings.NewReader(`{"paymentMethodToken":"`+inst+`"}`))
					req.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
					req.Header.Set("X-API-VERSION", "2.4")
					res, err := a.api.HTTP.Do(req)
					if err != nil {
						answered <- 0
						return
					}
					_ = res.Body.Close()
					answered <- res.StatusCode
				}()
				require.Eventually(t, func() bool {
					list, _ := a.api.Req("GET", "/payments", nil).JSON["data"].([]any)
					return len(list) == 1
				}, hangGuard, 5*time.Millisecond, "the payment exists (its request is held)")
			}

			err := a.Close()
			assert.ErrorIs(t, err, context.DeadlineExceeded, "the flush that did not finish is reported")
			require.False(t, a.stopBy.IsZero(), "the stop's deadline was set when it began")
			mu.Lock()
			require.Len(t, flushes, 1, "the exporter is flushed once")
			f := flushes[0]
			mu.Unlock()
			require.True(t, f.set, "the exporter's flush has a deadline")
			assert.True(t, f.deadline.Equal(a.stopBy), "its deadline is the stop's (%s), not one of its own (%s)", a.stopBy, f.deadline)
			assert.ErrorIs(t, f.err, context.DeadlineExceeded, "the collector never answered: the flush gave up at the deadline")
			if !held {
				assert.Positive(t, collector.received.Load(), "with budget left the exporter did send the spans")
			} else {
				select {
				case status := <-answered:
					assert.Equal(t, 504, status, "the held request was cut at the budget's end")
				case <-time.After(hangGuard):
					t.Fatal("the held request never ended")
				}
			}
		})
	}
}
