package app

import (
	"fmt"
	"os"

	"github.com/paysandbox/paysandbox/simulator/httpapi"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// seed loads the snapshots of --seed, each into the tenant its checksum
// names unless that tenant exists (a restart adds none), and logs each
// seeded tenant's id and key. A file that cannot be read or is refused
// stops the start.
func (a *App) seed() error {
	for _, name := range a.Config.Seed {
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		limit := a.Config.SnapshotMaxBytes
		if limit <= 0 {
			limit = httpapi.DefaultSnapshotMaxBytes
		}
		snap, err := snapshot.Open(b, max(limit, int64(len(b))))
		if err != nil {
			return fmt.Errorf("seed %s: %w", name, err)
		}
		t, created, trimmed, err := a.Server.SeedSnapshot(snap, a.Config.AdminKey)
		if err != nil {
			return fmt.Errorf("seed %s: %w", name, err)
		}
		if len(trimmed) > 0 && created {
			a.Log.Warn(httpapi.SnapshotTrimWarning(trimmed), "file", name, "tenant", t.ID)
		}
		msg := "seeded tenant loaded from its snapshot"
		if !created {
			msg = "seeded tenant already present; its data is kept as it is"
		}
		a.Log.Info(msg, "file", name, "tenant", t.ID, "apiKey", t.APIKeys[0].Key, "snapshotTenant", snap.Tenant.ID)
	}
	return nil
}
