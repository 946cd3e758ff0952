package store

// SetLayoutCut makes the move to tenant files (migrate_tenants.go) stop
// with an error at its stop-th step that reaches the disk, and each of its
// write transactions hold at most batch keys (0: the default); the returned
// func restores the defaults.
func SetLayoutCut(batch, stop int) (restore func()) {
	b, cut := layoutBatch, layoutCut
	if batch > 0 {
		layoutBatch = batch
	}
	seen := 0
	layoutCut = func(string) error {
		if seen++; seen == stop {
			return errMigrateCut
		}
		return nil
	}
	return func() { layoutBatch, layoutCut = b, cut }
}

// MigrateToTenantFiles moves the single data file at path to tenant files.
func MigrateToTenantFiles(path string) (int, error) { return migrateToTenantFiles(path, nil) }
