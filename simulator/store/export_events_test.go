package store

// WaitEventIndex starts building the events-by-payment index of tenant
// tid's file if needed and waits until the build ended; it reports whether
// queries use it from then on.
func WaitEventIndex(d *DB, tid string) bool {
	f, err := d.reg.acquire(tid, true)
	if err != nil {
		return false
	}
	defer d.reg.release(f)
	f.events.use()
	<-f.events.built
	return f.events.ready.Load()
}
