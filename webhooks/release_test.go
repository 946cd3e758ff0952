package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/clock"
	"github.com/paysandbox/paysandbox/simulator/idgen"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/webhooks"
)

// Events stored in the body form (testdata/release_store.aof: the
// goldenBodies flow, PENDING, each event with its rendered body and not the
// records it came from) send exactly their stored bytes, signedAt filled in,
// on every attempt and replay, and show them; and those bytes are the ones
// the renderer makes (the goldens).
func TestReleaseEventsSendTheirStoredBodies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "release_store.aof"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "store.aof")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	stored := map[string]string{} // event id -> body as stored
	require.NoError(t, db.TenantRecords("default", func(k, _ string) bool {
		if strings.HasPrefix(k, "evt:") {
			stored[k[strings.LastIndexByte(k, ':')+1:]] = ""
		}
		return true
	}))
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for id := range stored {
			e, err := tx.Event("default", id)
			require.NoError(t, err)
			require.NotNil(t, e, id)
			require.NotEmpty(t, e.Body, id)
			stored[id] = string(e.Body)
		}
		return nil
	}))
	require.Len(t, stored, 8)

	var mu sync.Mutex
	got := map[string][]string{} // event id -> bodies received
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		assert.NoError(t, webhooks.Verify("secret", b, r.Header.Get(webhooks.HeaderSignaturePrimary)))
		mu.Lock()
		got[r.Header.Get(webhooks.HeaderEventID)] = append(got[r.Header.Get(webhooks.HeaderEventID)], string(b))
		mu.Unlock()
	}))
	t.Cleanup(rc.Close)

	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	clk := clock.NewManual(epoch.Add(2 * time.Hour))
	var d *webhooks.Dispatcher
	svc := service.NewService(db, clk, &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{Renderer: webhooks.Renderer{}, Webhooks: webhooks.Attach(&d, webhooks.Options{Timeout: 5 * time.Second})})
	tn, err := svc.Tenant("default")
	require.NoError(t, err)
	tn, err = svc.SetWebhookURL(tn, rc.URL)
	require.NoError(t, err)

	ctx := context.Background()
	delivered, failed := d.DeliverPending(ctx, tn.ID)
	require.Equal(t, 8, delivered)
	require.Zero(t, failed)
	clk.Advance(time.Minute)
	stamped := func(body, signedAt string) string {
		return strings.Replace(body, `"signedAt":""`, `"signedAt":"`+signedAt+`"`, 1)
	}
	for id, body := range stored {
		_, err := svc.ReplayWebhook(ctx, tn, id)
		require.NoError(t, err)
		ev, err := svc.Event(tn, id)
		require.NoError(t, err)
		require.Nil(t, ev.Payment, "an event of the earlier release carries its body only")
		require.Len(t, ev.Attempts, 2)
		require.NotEqual(t, ev.Attempts[0].SignedAt, ev.Attempts[1].SignedAt)
		var want []string
		for _, a := range ev.Attempts {
			want = append(want, stamped(body, a.SignedAt))
			sent, err := svc.SentBody(ev, a)
			require.NoError(t, err)
			assert.Equal(t, stamped(body, a.SignedAt), string(sent), "%s: the body shown for an attempt", id)
		}
		assert.Equal(t, want, got[id], "%s: the stored bytes, sent by the attempt and the replay", id)
		shown, err := svc.EventBody(ev)
		require.NoError(t, err)
		assert.Equal(t, want[1], string(shown), "%s: the event's body is its latest attempt's", id)
	}

	// The stored bodies are the renderer's: signed at epoch they are the goldens.
	goldens := map[string]bool{}
	for _, body := range stored {
		var b struct {
			EventType string
			Payment   struct{ Status string }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &b))
		name := map[string]string{
			simulator.EventPaymentStatus: "payment_status_" + b.Payment.Status, simulator.EventPaymentRefund: "payment_refund",
			simulator.EventDisputeOpened: "dispute_opened", simulator.EventDisputeStatus: "dispute_status",
		}[b.EventType]
		golden, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		require.NoError(t, err, name)
		var pretty bytes.Buffer
		require.NoError(t, json.Indent(&pretty, []byte(stamped(body, "1795332600")), "", "  "))
		pretty.WriteByte('\n')
		if string(golden) == pretty.String() {
			goldens[name] = true
		}
	}
	assert.Len(t, goldens, 7, "every golden is the body of one of the stored events")
}
