package storeconv_test

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// eventView is an event with what its JSON leaves out (its inputs).
type eventView struct {
	Event   *simulator.Event
	Payment *simulator.Payment
	Dispute *simulator.Dispute
}

// snapshot reads every record of the upgrade fixture through the store's
// API (decoded domain values, keyed by what was asked), the same way on any
// version of the record format.
func snapshot(t *testing.T, db *store.DB) map[string]any {
	t.Helper()
	out := map[string]any{}
	keys := map[string][]string{}
	for _, tid := range []string{"default", "t2"} {
		require.NoError(t, db.TenantRecords(tid, func(k, _ string) bool { keys[tid] = append(keys[tid], k); return true }))
	}
	far := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		put := func(name string, v any, err error) {
			require.NoError(t, err, name)
			out[name] = v
		}
		tns, err := tx.Tenants()
		put("tenants", tns, err)
		for _, k := range []string{"key", "key2", "nokey"} {
			tn, err := tx.TenantByAPIKey(k)
			put("apikey:"+k, tn, err)
		}
		x, err := tx.ExpiredTenantByAPIKey("oldkey")
		put("expired:oldkey", x, err)
		nj, err := tx.NextJob()
		put("nextjob", nj, err)
		for tid, ks := range keys {
			for _, fk := range ks {
				k := "t:" + tid + ":" + fk // named as the layouts before format 1 keyed it
				id := k[strings.LastIndexByte(k, ':')+1:]
				switch {
				case strings.HasPrefix(k, "ctok:"):
					v, err := tx.SessionByToken(strings.TrimPrefix(k, "ctok:"))
					put(k, v, err)
				case strings.HasPrefix(k, "ch3ds:"):
					v, err := tx.PaymentByChallenge(strings.TrimPrefix(k, "ch3ds:"))
					put(k, v, err)
				case strings.Contains(k, ":cs:"):
					v, err := tx.Session(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":pi:"):
					v, err := tx.Instrument(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":pay:"):
					v, err := tx.Payment(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":att:"):
					v, err := tx.Attempt(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":job:"):
					v, err := tx.Job(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":dsp:"):
					v, err := tx.Dispute(tid, id)
					put(k, v, err)
				case strings.Contains(k, ":evt:"):
					e, err := tx.Event(tid, id)
					require.NoError(t, err)
					require.NotNil(t, e, k)
					out[k] = eventView{Event: e, Payment: e.Payment, Dispute: e.Dispute}
					r, err := tx.EventRecord(tid, id)
					put(k+"/record", r, err)
				case strings.Contains(k, ":idem:"):
					raw, err := hex.DecodeString(id)
					require.NoError(t, err)
					v, err := tx.Idempotency(tid, string(raw))
					put(k, v, err)
				case strings.Contains(k, ":cust:"):
					cust, err := hex.DecodeString(strings.Split(k, ":")[3])
					require.NoError(t, err)
					v, err := tx.InstrumentsByCustomer(tid, string(cust))
					put(k, v, err)
				}
			}
			pg, err := tx.ListPayments(tid, simulator.PaymentQuery{Limit: 10})
			put(tid+"/list", pg, err)
			pg, err = tx.ListPayments(tid, simulator.PaymentQuery{Limit: 10, Status: []simulator.PaymentStatus{simulator.StatusAuthorized}, CurrencyCode: []string{"EUR"}})
			put(tid+"/list-filtered", pg, err)
			evs, err := tx.Events(tid, simulator.EventQuery{})
			put(tid+"/events", evs, err)
			for _, pid := range []string{"pay2", "pay3", "nope"} {
				evs, err := tx.Events(tid, simulator.EventQuery{PaymentID: pid})
				put(tid+"/events/"+pid, evs, err)
			}
			ds, err := tx.Disputes(tid, "")
			put(tid+"/disputes", ds, err)
			as, err := tx.Attempts(tid)
			put(tid+"/attempts", as, err)
			js, err := tx.DueJobs(tid, far, 0)
			put(tid+"/jobs", js, err)
			pe, err := tx.PendingEvents(tid)
			put(tid+"/pending", pe, err)
		}
		return nil
	}))
	return out
}
