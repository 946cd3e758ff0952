package simulator_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

func sealedSnapshot(t *testing.T) []byte {
	t.Helper()
	at := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	amount := int64(1000)
	s := &simulator.Snapshot{ExportedAt: at, Tenant: simulator.SnapshotTenant{ID: "t_1", Now: at, ClockOffset: "0s",
		Keys: []simulator.SnapshotKey{{Scopes: simulator.AllScopes}}}}
	s.Data.Sessions = []*simulator.ClientSession{{ID: "cs-1", ClientToken: "cst_x", Data: simulator.SessionData{Amount: &amount,
		Metadata: map[string]any{"big": json.Number("12345678901234567890"), "html": "<b>&</b>"}}}}
	b, err := s.Seal()
	require.NoError(t, err)
	return b
}

// TestSnapshotChecksum: the checksum survives reformatting (whitespace)
// and nothing else; metadata keeps its exact numbers.
func TestSnapshotChecksum(t *testing.T) {
	b := sealedSnapshot(t)
	s, err := simulator.OpenSnapshot(b, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, json.Number("12345678901234567890"), s.Data.Sessions[0].Data.Metadata["big"])

	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, b, "", "  "))
	_, err = simulator.OpenSnapshot(pretty.Bytes(), 1<<20)
	assert.NoError(t, err, "reformatted")

	tests := map[string]struct {
		doc  []byte
		path string
	}{
		"a value edited":  {bytes.Replace(b, []byte(`"cs-1"`), []byte(`"cs-2"`), 1), "$.checksum"},
		"a member added":  {bytes.Replace(b, []byte(`"data":{`), []byte(`"extra":1,"data":{`), 1), "$.checksum"},
		"cut short":       {b[:len(b)-10], "$"},
		"unknown version": {bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1), "$.version"},
		"another format":  {bytes.Replace(b, []byte(simulator.SnapshotFormat), []byte("other"), 1), "$.format"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := simulator.OpenSnapshot(tc.doc, 1<<20)
			var e *simulator.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, simulator.CodeRequestValidationError, e.Code)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, tc.path, e.Fields[0].Path, e.Fields[0].Description)
		})
	}
	assert.True(t, simulator.IsSnapshot(b[:40]), "a snapshot cut short is still one")
	assert.False(t, simulator.IsSnapshot([]byte(`{"scopes":[],"webhookUrl":"http://x"}`)))
}
