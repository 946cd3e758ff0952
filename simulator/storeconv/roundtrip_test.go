package storeconv_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
	"github.com/paysandbox/paysandbox/simulator/storeconv"
)

// cborStale is the store's target with its own records (CBOR) taken as not
// current, as they are once the store's encoding changes: every record is
// converted, and what the conversion decoded is kept by key.
type cborStale struct {
	storeconv.Target
	got map[string]any
}

func (cborStale) Current(_, raw string) bool { return false }

func (c cborStale) Encode(key string, v any) ([][2]string, error) {
	c.got[key] = v
	return c.Target.Encode(key, v)
}

// Every kind of record of the store's CBOR format is decoded by the
// conversion into the kernel value the store itself reads from it, and the
// store reads the same after it wrote them again: the path the conversion
// takes for today's records once they are not current.
func TestConvertCBORRecords(t *testing.T) {
	path := singleFileFixture(t)
	db := openStore(t, path, nil)
	checkSingleFileReads(t, db)
	require.NoError(t, db.Close())

	editFile(t, path, [2]string{storeconv.KeyFormat, "cbor1"}, [2]string{"layout", "tenant-files/1"}) // an older format: converted again
	stale := cborStale{Target: store.ConversionTarget(path), got: map[string]any{}}
	_, err := storeconv.Convert(path, stale, nil)
	require.NoError(t, err)

	db = openStore(t, path, nil)
	t.Cleanup(func() { _ = db.Close() })
	checkSingleFileReads(t, db)
	kinds := map[string]int{}
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for key, v := range stale.got {
			want, kind := storeRead(t, tx, key, v)
			kinds[kind]++
			if e, ok := want.(*simulator.Event); ok && e.Payment != nil {
				// written again, an event made from a payment names its
				// status, which the fixture's layout did not record
				e.PaymentStatus = v.(*simulator.Event).PaymentStatus
			}
			assert.Equal(t, want, v, key)
		}
		return nil
	}))
	for _, k := range []string{"tenant", "xten", "cs", "pi", "pay", "att", "evt", "job", "dsp"} {
		assert.Positive(t, kinds[k], "the fixture has records of kind %s", k)
	}
}

// storeRead is what the store reads for the record at key, and the key's
// kind (an expired tenant is read by an API key of got, what the
// conversion decoded).
func storeRead(t *testing.T, tx simulator.Tx, key string, got any) (any, string) {
	t.Helper()
	if id, ok := strings.CutPrefix(key, "tenant:"); ok {
		v, err := tx.Tenant(id)
		require.NoError(t, err)
		return v, "tenant"
	}
	if strings.HasPrefix(key, "xten:") {
		x, ok := got.(*simulator.ExpiredTenant)
		require.True(t, ok && len(x.APIKeys) > 0, key)
		v, err := tx.ExpiredTenantByAPIKey(x.APIKeys[0])
		require.NoError(t, err)
		return v, "xten"
	}
	parts := strings.Split(key, ":")
	require.GreaterOrEqual(t, len(parts), 4, key)
	tid, kind, id := parts[1], parts[2], parts[len(parts)-1]
	var v any
	var err error
	switch kind {
	case "cs":
		v, err = tx.Session(tid, id)
	case "pi":
		v, err = tx.Instrument(tid, id)
	case "pay":
		v, err = tx.Payment(tid, id)
	case "att":
		v, err = tx.Attempt(tid, id)
	case "evt":
		v, err = tx.Event(tid, id)
	case "job":
		v, err = tx.Job(tid, id)
	case "dsp":
		v, err = tx.Dispute(tid, id)
	default:
		t.Fatalf("no read for %s", key)
	}
	require.NoError(t, err, key)
	return v, kind
}
