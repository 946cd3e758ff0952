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

// recording is the store's target, keeping by key what the conversion
// decoded and handed it.
type recording struct {
	storeconv.Target
	got map[string]any
}

func (c recording) Encode(tid, key string, v any) ([][2]string, error) {
	if tid != "" && !strings.HasPrefix(key, "tenant:") {
		c.got["t:"+tid+":"+key] = v // the key as the layouts before format 1 named it
	} else {
		c.got[key] = v
	}
	return c.Target.Encode(tid, key, v)
}

// Every kind of record of the CBOR format (the single-file fixture's) is
// decoded by the conversion into the kernel value the store reads once it
// wrote it again in the current format.
func TestConvertCBORRecords(t *testing.T) {
	path := singleFileFixture(t)
	rec := recording{Target: store.ConversionTarget(path), got: map[string]any{}}
	_, err := storeconv.Convert(path, rec, nil)
	require.NoError(t, err)

	db := openStore(t, path, nil)
	t.Cleanup(func() { _ = db.Close() })
	checkSingleFileReads(t, db)
	kinds := map[string]int{}
	require.NoError(t, db.View(func(tx simulator.Tx) error {
		for key, v := range rec.got {
			if _, ok := v.(storeconv.SessionToken); ok {
				continue
			}
			if _, ok := v.(storeconv.ChallengeToken); ok {
				continue
			}
			if strings.Count(key, ":") == 2 && strings.HasPrefix(key, "t:") {
				continue // an observer's record: its tree, read by its observer
			}
			want, kind := storeRead(t, tx, key, v)
			kinds[kind]++
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
