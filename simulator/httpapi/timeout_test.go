package httpapi

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeoutRace: handlers that answer around the deadline (waiting on the
// request's context, or not) always give one whole answer, either theirs or
// the 504, never a mix of both; the handler that waits on its context ends
// at the deadline.
func TestTimeoutRace(t *testing.T) {
	s, _, ts := newBareServer(t, Options{RequestTimeout: 20 * time.Millisecond})
	s.e.POST("/t/around", func(c echo.Context) error {
		time.Sleep(time.Duration(len(body(c))) * time.Millisecond)
		c.Response().Header().Set("X-Handler", "yes")
		return c.JSON(http.StatusOK, map[string]string{"late": "maybe"})
	}, readBody, s.timeout)
	s.e.POST("/t/holds", func(c echo.Context) error {
		<-c.Request().Context().Done()
		return c.JSON(http.StatusOK, map[string]string{"late": "always"})
	}, readBody, s.timeout)

	var wg sync.WaitGroup
	answers := make([]answer, 40)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/t/around"
			if i%4 == 0 {
				path = "/t/holds"
			}
			answers[i] = call(t, "POST", ts.URL+path, string(make([]byte, 10+i%25)))
		}()
	}
	wg.Wait()
	for i, r := range answers {
		switch r.status {
		case http.StatusOK:
			assert.NotEqual(t, 0, i%4, "a handler holding the request never answers in time")
			assert.Equal(t, "yes", r.header.Get("X-Handler"))
			assert.JSONEq(t, `{"late":"maybe"}`, string(r.body))
		case http.StatusGatewayTimeout:
			require.NotNil(t, r.err, "%s", r.body)
			assert.Equal(t, "RequestTimeout", r.err["errorId"])
			assert.Empty(t, r.header.Get("X-Handler"))
		default:
			t.Fatalf("answer %d: %d %s", i, r.status, r.body)
		}
	}
}
