package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestInstrumentRevision: the revision read with an instrument answers
// whether its stored value is still that one: yes until it is written with
// other content or deleted, and yes again after a write of the same content.
func TestInstrumentRevision(t *testing.T) {
	now := time.Unix(1700000000, 0).UTC()
	tests := []struct {
		name   string
		change func(tx simulator.Tx, in *simulator.Instrument) error // nil: none
		tok    string                                                // "" : the one read
		want   bool
	}{
		{"unchanged", nil, "", true},
		{"written again, same content", func(tx simulator.Tx, in *simulator.Instrument) error { return tx.PutInstrument(in) }, "", true},
		{"marked used", func(tx simulator.Tx, in *simulator.Instrument) error { in.Used = true; return tx.PutInstrument(in) }, "", false},
		{"deleted", func(tx simulator.Tx, in *simulator.Instrument) error { return tx.DeleteTenantData("t1", false) }, "", false},
		{"another token", nil, "tok2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			for _, tok := range []string{"tok1", "tok2"} {
				in := &simulator.Instrument{Token: tok, TenantID: "t1", TokenType: simulator.TokenSingleUse, CreatedAt: now}
				require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutInstrument(in) }))
			}
			var in *simulator.Instrument
			var rev simulator.Revision
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { in, rev, err = tx.InstrumentRevision("t1", "tok1"); return }))
			require.NotNil(t, in)
			require.NotEmpty(t, rev)
			if tt.change != nil {
				require.NoError(t, db.Update(func(tx simulator.Tx) error { return tt.change(tx, in) }))
			}
			tok := tt.tok
			if tok == "" {
				tok = "tok1"
			}
			var same bool
			require.NoError(t, db.Update(func(tx simulator.Tx) (err error) { same, err = tx.InstrumentAt("t1", tok, rev); return }))
			assert.Equal(t, tt.want, same)
		})
	}
	db := openDB(t)
	var rev simulator.Revision
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { _, rev, err = tx.InstrumentRevision("t1", "none"); return }))
	assert.Empty(t, rev, "no record, no revision")
}
