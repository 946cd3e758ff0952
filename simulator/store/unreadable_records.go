package store

import (
	"errors"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// A stored record that does not decode (damaged on disk) is the catalogue's
// RecordUnreadable naming its key, never an internal error: a read of that
// record answers it; a list skips it, and the transaction keeps its key
// (Tx.Unreadable) for the caller to name.

// unreadableError is the record at key that does not decode, and why.
type unreadableError struct {
	key   string
	cause error
}

func (e *unreadableError) Error() string {
	return "store: the record " + e.key + " does not decode: " + e.cause.Error()
}

func (e *unreadableError) Unwrap() []error {
	return []error{simulator.ErrRecordUnreadable(e.key), e.cause}
}

// unreadable is err (a decode of the record at key) as a RecordUnreadable;
// nil stays nil.
func unreadable(key string, err error) error {
	if err == nil {
		return nil
	}
	var u *unreadableError
	if errors.As(err, &u) {
		return err
	}
	return &unreadableError{key: key, cause: err}
}

// skip notes the record a list skips because err says it does not decode,
// and reports whether err was that (any other error stops the list).
func (t *Tx) skip(err error) bool {
	var u *unreadableError
	if !errors.As(err, &u) {
		return false
	}
	for _, r := range t.unreadable {
		if r.Key == u.key {
			return true
		}
	}
	t.unreadable = append(t.unreadable, recordOf(u.key))
	return true
}

// Unreadable implements simulator.Tx: the records this transaction's lists
// skipped because they do not decode, in the order met.
func (t *Tx) Unreadable() []simulator.UnreadableRecord { return t.unreadable }

// recordKinds names the kinds of a tenant file's records by key part.
var recordKinds = map[string]string{
	"pay": simulator.RecordPayment, "cs": simulator.RecordSession, "pi": simulator.RecordInstrument,
	"att": simulator.RecordAttempt, "evt": simulator.RecordEvent, "dsp": simulator.RecordDispute, "job": simulator.RecordJob,
}

// recordOf names the record at key: its kind and id (a tenant file's
// "<kind>:...:<id>"; a catalog key names no kind).
func recordOf(key string) simulator.UnreadableRecord {
	r := simulator.UnreadableRecord{Key: key}
	kind, rest, ok := strings.Cut(key, ":")
	if r.Kind = recordKinds[kind]; ok && r.Kind != "" {
		r.ID = rest[strings.LastIndexByte(rest, ':')+1:]
	}
	return r
}
