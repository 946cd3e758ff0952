package snapshot_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

const sessionID = "2f1e0c3a-5b6d-4e7f-8a9b-0c1d2e3f4a5b"

func sealedSnapshot(t *testing.T) []byte {
	t.Helper()
	at := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	amount := int64(1000)
	s := &snapshot.Snapshot{ExportedAt: at, Tenant: snapshot.Tenant{ID: "t_1", Now: at, ClockOffset: "0s",
		Keys: []snapshot.Key{{Scopes: simulator.AllScopes}}}}
	s.Data.Sessions = []*simulator.ClientSession{{ID: sessionID, ClientToken: "cst_x", ApprovalMode: simulator.ApprovalAuto, Data: simulator.SessionData{Amount: &amount,
		CurrencyCode: "EUR", Metadata: map[string]any{"big": json.Number("12345678901234567890"), "html": "<b>&</b>", "b": 1, "a": []any{json.Number("1.50")}}}}}
	b, err := s.Seal()
	require.NoError(t, err)
	return b
}

// TestSnapshotChecksum: the checksum survives re-serialisation (other
// whitespace, sorted keys as jq -S and Python's sort_keys write them, a Go
// map round trip) and nothing else; metadata keeps its exact numbers.
func TestSnapshotChecksum(t *testing.T) {
	b := sealedSnapshot(t)
	s, err := snapshot.Open(b, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, json.Number("12345678901234567890"), s.Data.Sessions[0].Data.Metadata["big"])
	assert.EqualValues(t, 2, s.Version)

	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, b, "", "  "))
	var m map[string]any // a Go map round trip: keys sorted at every level, HTML escaped, numbers as float64
	require.NoError(t, json.Unmarshal(b, &m))
	roundTrip, err := json.MarshalIndent(m, "", "\t")
	require.NoError(t, err)
	canonical, err := snapshot.CanonicalJSON(b) // sorted keys, as jq -S -c writes them
	require.NoError(t, err)
	for name, doc := range map[string][]byte{"indented": pretty.Bytes(), "Go map round trip": roundTrip, "sorted keys": canonical} {
		_, err = snapshot.Open(doc, 1<<20)
		assert.NoError(t, err, name)
	}
	require.True(t, bytes.Contains(roundTrip, []byte(`\u003cb\u003e`)) && bytes.Contains(roundTrip, []byte(`12345678901234567000`)), "%s", roundTrip)

	tests := map[string]struct {
		doc  []byte
		path string
	}{
		"a value edited":  {bytes.Replace(b, []byte(`"cst_x"`), []byte(`"cst_y"`), 1), "$.checksum"},
		"a number edited": {bytes.Replace(b, []byte(`[1.50]`), []byte(`[1.51]`), 1), "$.checksum"},
		"a member added":  {bytes.Replace(b, []byte(`"data":{`), []byte(`"extra":1,"data":{`), 1), "$.checksum"},
		"cut short":       {b[:len(b)-10], "$"},
		"unknown version": {bytes.Replace(b, []byte(`"version":2`), []byte(`"version":3`), 1), "$.version"},
		"another format":  {bytes.Replace(b, []byte(snapshot.Format), []byte("other"), 1), "$.format"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := snapshot.Open(tc.doc, 1<<20)
			var e *simulator.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, simulator.CodeRequestValidationError, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, tc.path, e.Fields[0].Path, e.Fields[0].Description)
		})
	}
	assert.True(t, snapshot.Is(b[:40]), "a snapshot cut short is still one")
	assert.False(t, snapshot.Is([]byte(`{"scopes":[],"webhookUrl":"http://x"}`)))
}
