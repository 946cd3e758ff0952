package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJobsAreStampedWithTheirDueTime: a clock advance that jumps past a
// scheduled change (settlement, attempt expiry) makes it at its due time on
// the tenant clock, not at the advance's new now: dateUpdated, the status
// event's date and the attempt's updatedAt say when it happened.
func TestJobsAreStampedWithTheirDueTime(t *testing.T) {
	root := newTestApp(t)
	at := func(t *testing.T, s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err, "%q", s)
		return v
	}

	t.Run("settlement", func(t *testing.T) {
		a := root.asNewTenant()
		require.Equal(t, 200, a.putRules("rules:\n  - name: settle-slowly\n    when: { amount: 1234 }\n    capture: { status: SETTLING, settleAfter: 5m }\n").Status)
		id := a.payFull(1234, "4111111111111111", nil).Str("id")
		c := a.must(200, "POST", "/payments/"+id+"/capture", nil)
		require.Equal(t, "SETTLING", c.Str("status"))
		captured := at(t, c.Str("dateUpdated"))

		a.advance("1h")
		p := a.payment(id)
		require.Equal(t, "SETTLED", p.Str("status"))
		assert.Equal(t, captured.Add(5*time.Minute), at(t, p.Str("dateUpdated")), "settled 5m after the capture, not at +1h")
		evs := a.events(id)
		last := evs[len(evs)-1]
		assert.Equal(t, captured.Add(5*time.Minute), at(t, last["createdAt"].(string)), "the SETTLED event was made at its due time")
	})

	t.Run("dispute and its scripted steps", func(t *testing.T) {
		a := root.asNewTenant()
		p := a.payFull(9100, "4111111111111111", nil) // dispute-then-lost: opens 1m after, CHALLENGED 1h later, LOST 24h later
		id, paid := p.Str("id"), at(t, p.Str("dateUpdated"))
		a.advance("48h")
		r := a.must(200, "GET", "/_sandbox/disputes?paymentId="+id, nil)
		ds := r.JSON["data"].([]any)
		require.Len(t, ds, 1, "%s", r.Body)
		d := ds[0].(map[string]any)
		assert.Equal(t, "LOST", d["status"], "every step falls within the one advance")
		assert.Equal(t, paid.Add(time.Minute), at(t, d["openedAt"].(string)))
		assert.Equal(t, paid.Add(time.Minute+time.Hour+24*time.Hour), at(t, d["updatedAt"].(string)))
	})
}
