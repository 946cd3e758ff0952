package store

// WaitEventIndex starts building the events-by-payment index if needed and
// waits until the build ended; it reports whether queries use it from then on.
func WaitEventIndex(d *DB) bool {
	d.events.use()
	<-d.events.built
	return d.events.ready.Load()
}
