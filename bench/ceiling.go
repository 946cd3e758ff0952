package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
)

// CeilingOptions are the flags of the hidden `paysandbox bench ceiling-server`.
type CeilingOptions struct {
	Addr   string
	Bodies string
}

// RunCeiling is the ceiling of `bench --compare-ceiling`, which starts it
// as a process of its own: a bare echo/v4 server answering every endpoint of
// the flows with the body the sandbox gave (a JSON file: endpoint label ->
// body), POST bodies decoded first as a handler decodes them; no middleware,
// no store, no log. It prints its address ("http://HOST:PORT") on a line of
// its own once it listens, and serves until ctx ends.
func RunCeiling(ctx context.Context, opts *CeilingOptions, out io.Writer) error {
	bodies := map[string][]byte{}
	if opts.Bodies != "" {
		raw, err := os.ReadFile(opts.Bodies)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &bodies); err != nil {
			return fmt.Errorf("ceiling-server: %s: %w", opts.Bodies, err)
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	// No timeouts, as the bare server of the shared benchmark: it serves
	// bench's own clients on loopback for one run.
	srv := &http.Server{Handler: ceilingHandler(bodies)}

	fmt.Fprintf(out, "http://%s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// ceilingHandler answers every endpoint of the flows (benchLabels) with its
// body from bodies, or a small JSON object carrying the fields the flows read
// where the sandbox's answer was not captured.
func ceilingHandler(bodies map[string][]byte) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	for _, label := range benchLabels {
		method, path, _ := strings.Cut(label, " ")
		path = strings.ReplaceAll(path, "{id}", ":id")
		body := bodies[label]
		if body == nil {
			body = []byte(`{"id":"ceilingp","apiKey":"k","clientToken":"c","token":"t","paymentAttemptId":"a","merchantPaymentId":"ceilingp"}`)
		}
		if method == http.MethodGet {
			e.GET(path, func(c echo.Context) error { return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body) })
			continue
		}
		e.Add(method, path, func(c echo.Context) error {
			var req map[string]json.RawMessage
			if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
				return c.Blob(http.StatusBadRequest, echo.MIMEApplicationJSON, []byte(`{"error":{"errorId":"BadRequest"}}`))
			}
			return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
		})
	}
	return e
}
