package store_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// A client token that names its session (simulator.WithSession) is stored
// with no ctok entry and read back through the session it names, accepted
// only if that session holds it; a token of an earlier build (tenant only)
// or one naming another session keeps its ctok entry and reads back
// through it; a forged token (another secret, another session's part, the
// right token with a character changed) reads nothing.
func TestSessionTokens(t *testing.T) {
	const s1, s2, s3 = "0190a5c4-1b2e-4f3a-8b4c-5d6e7f809111", "0190a5c4-1b2e-4f3a-8b4c-5d6e7f809112", "0190a5c4-1b2e-4f3a-8b4c-5d6e7f809113"
	tok1 := simulator.WithSession("t1", s1, "cst_secret1")
	old := simulator.WithTenant("t1", "cst_oldtoken") // names no session
	other := simulator.WithSession("t1", s1, "cst_secret3")
	sessions := []*simulator.ClientSession{
		{ID: s1, TenantID: "t1", ClientToken: tok1},
		{ID: s2, TenantID: "t1", ClientToken: old},
		{ID: s3, TenantID: "t1", ClientToken: other}, // a token naming s1: kept by its ctok entry
	}
	db := openDB(t)
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		for _, cs := range sessions {
			if err := tx.PutSession(cs); err != nil {
				return err
			}
		}
		return nil
	}))
	var ctok []string
	require.NoError(t, db.TenantRecords("t1", func(k, _ string) bool {
		if strings.HasPrefix(k, "ctok:") {
			ctok = append(ctok, k)
		}
		return true
	}))
	assert.ElementsMatch(t, []string{"ctok:" + old, "ctok:" + other}, ctok, "entries only for tokens that do not name their session")

	for _, tc := range []struct {
		name, tok, want string
	}{
		{"names its session", tok1, s1},
		{"an earlier build's", old, s2},
		{"names another session", other, s3},
		{"another secret", simulator.WithSession("t1", s1, "cst_secret2"), ""},
		{"another session's part", simulator.WithSession("t1", s2, "cst_secret1"), ""},
		{"one character changed", tok1[:len(tok1)-1] + "2", ""},
		{"another tenant", simulator.WithSession("t2", s1, "cst_secret1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs *simulator.ClientSession
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { cs, err = tx.SessionByToken(tc.tok); return }))
			if tc.want == "" {
				assert.Nil(t, cs)
				return
			}
			require.NotNil(t, cs)
			assert.Equal(t, tc.want, cs.ID)
			assert.Equal(t, tc.tok, cs.ClientToken)
		})
	}
}
