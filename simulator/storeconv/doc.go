// Package storeconv converts every layout the store (simulator/store) had
// before format 1, the first release's, into the current one. The store's
// Open runs it only when the catalog says its files are older (no format
// number: the single data file, JSON records, catalogs marked "cbor1"),
// before it serves anything; a conversion cut by kill -9 resumes at the next
// start.
//
// It reads old records with its own frozen copies of their types and
// decoders (records.go: JSON, and CBOR behind the version byte 0x01), turns
// each into the kernel's value (*simulator.Payment, *simulator.Event, ...)
// and has the store encode it in the current format through Target, so the
// store's transaction code knows one format. Which records are current is
// the store's answer (Target.Current): when the store's encoding changes,
// the records of the previous one are converted by the same code.
//
// Index entries the store writes only for some records need no
// conversion: an event has an id entry (evi) only when its id does not
// carry its key's creation stamp (simulator.UUIDMicros), and the store
// reads an event by the key its id names first and through evi when that
// finds nothing, so a file whose every event has an evi entry is format 1
// as it is. Likewise a client token has an entry (ctok) only when it does
// not name its session (simulator.SessionOfToken), and the store reads a
// token through its entry when the session it names does not hold it.
//
// It imports simulator, simulator/cards, fixtures and buntdb; never the
// store (the store imports it) or any adapter.
package storeconv
