package bench

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/app"
	"github.com/paysandbox/paysandbox/simulator"
)

// TestBenchErrorsByID: failed requests are counted under their errorId.
func TestBenchErrorsByID(t *testing.T) {
	srv, err := app.Open(app.Config{Addr: "127.0.0.1:0", DB: ":memory:", RequestTimeout: 5 * time.Second, AttemptTTL: 15 * time.Minute,
		Fsync: "never", LogFormat: "text", LogLevel: "error"}, app.Options{LogOut: io.Discard})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	c := newBenchClient(srv.URL(), 1)
	t.Cleanup(c.http.CloseIdleConnections)
	w := &benchWorker{rec: &benchRecorder{}}
	st := &benchState{key: simulator.DefaultAPIKey, payments: []string{"nosuchpay"}}
	err = readFlow(t.Context(), c, st, w)
	require.Error(t, err)
	assert.Equal(t, map[string]int{"PaymentError": 1}, w.rec.eps["GET /payments/{id}"].errors)
	st.key = "wrong-key"
	require.Error(t, readFlow(t.Context(), c, st, w))
	assert.Equal(t, 1, w.rec.eps["GET /payments/{id}"].errors["Unauthorized"])
}
