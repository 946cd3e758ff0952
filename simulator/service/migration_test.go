package service_test

import (
	"path/filepath"
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
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// openMigrationEnv opens the store at path with a service that stores
// migration notes only when flushed.
func openMigrationEnv(t *testing.T, path string) (*service.Service, *store.DB, *simulator.Tenant) {
	t.Helper()
	db, err := store.Open(path, store.FsyncNever, store.Options{})
	require.NoError(t, err)
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	svc := service.NewService(db, clock.NewManual(svcEpoch), &idgen.Seq{}, catalog, processors.NewFake(nil, nil), nil,
		service.Config{MigrationFlush: time.Hour})
	tn, err := svc.EnsureTenant(service.TenantSpec{ID: "default", SigningSecret: "secret",
		APIKeys: []simulator.APIKey{{Key: "key", Scopes: simulator.AllScopes}}})
	require.NoError(t, err)
	return svc, db, tn
}

// recordMigration publishes that request rid of tenant tn hit diffs, as
// the HTTP adapter does.
func recordMigration(svc *service.Service, tn *simulator.Tenant, rid string, diffs []observe.Difference) {
	svc.Publish(observe.Happening{Kind: observe.DifferenceHit, TenantID: tn.ID, RequestID: rid, At: svc.Now(tn), Differences: diffs})
}

func migrationCounts(t *testing.T, svc *service.Service, tn *simulator.Tenant) map[string]int64 {
	t.Helper()
	m, err := svc.MigrationNotes(tn)
	require.NoError(t, err)
	out := map[string]int64{}
	for _, n := range m.Items {
		out[n.Kind] = n.Count
	}
	return out
}

// TestMigrationNotesFlush: counted notes are read at once, stored by a
// flush (merged with what the store had), persist across a reopen, and a
// reset drops the counts not stored yet, so that they do not come back.
func TestMigrationNotesFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	svc, db, tn := openMigrationEnv(t, path)
	hit := []observe.Difference{{Kind: simulator.DiffAnswerShape, Message: "m1"}}
	recordMigration(svc, tn, "r1", hit)
	recordMigration(svc, tn, "r2", hit)
	assert.Equal(t, map[string]int64{simulator.DiffAnswerShape: 2}, migrationCounts(t, svc, tn), "seen before any write")
	require.NoError(t, svc.FlushCounts())
	recordMigration(svc, tn, "r3", []observe.Difference{{Kind: simulator.DiffAnswerShape, Message: "m3"}, {Kind: simulator.DiffComputedType, Message: "c"}})
	m, err := svc.MigrationNotes(tn)
	require.NoError(t, err)
	require.Len(t, m.Items, 2)
	var shape string
	for _, d := range simulator.VersionDifferences {
		if d.Kind == simulator.DiffAnswerShape {
			shape = d.Description
		}
	}
	assert.Equal(t, observe.MigrationNote{Kind: simulator.DiffAnswerShape, Description: shape, Count: 3,
		ExampleRequestIDs: []string{"r1", "r2", "r3"}, FirstSeen: svcEpoch, LastSeen: svcEpoch, Variants: []observe.MigrationVariant{
			{Description: "m1", Count: 2, ExampleRequestIDs: []string{"r1", "r2"}, FirstSeen: svcEpoch, LastSeen: svcEpoch},
			{Description: "m3", Count: 1, ExampleRequestIDs: []string{"r3"}, FirstSeen: svcEpoch, LastSeen: svcEpoch},
		}}, m.Items[0], "stored and counted merge, per variant")
	require.NoError(t, svc.FlushCounts())
	require.NoError(t, db.Close())

	svc, db, tn = openMigrationEnv(t, path)
	assert.Equal(t, map[string]int64{simulator.DiffAnswerShape: 3, simulator.DiffComputedType: 1}, migrationCounts(t, svc, tn), "counts persist")

	recordMigration(svc, tn, "r4", hit)
	require.NoError(t, svc.ResetTenant(tn))
	require.NoError(t, svc.FlushCounts())
	assert.Empty(t, migrationCounts(t, svc, tn), "a reset drops the counts not stored yet")
	require.NoError(t, db.Close())
}
