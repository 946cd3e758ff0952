package store

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// Records are stored as CBOR (RFC 8949, fxamacker/cbor/v2) behind a one-byte
// format version. Field names come from the record types' struct tags (the
// codec reads `json` tags when a field has no `cbor` tag, so the domain
// types and the storage types in compact.go and tx_outbox.go each keep
// their names in one place); keys are the short names those tags give.
//
// Chosen by measurement (BenchmarkCodec in codec_bench_test.go, go1.26,
// 2-core machine shared with other builds; a typical checkout's records: a
// settled payment with its plan and two transactions, its event with the
// payment it was made from, a client session):
//
//	             bytes: payment  event  session   encode+decode µs: payment  event  session
//	encoding/json          1230   1924      337                         69     108     10.1
//	CBOR                    998   1241      295                         19      36      4.4
//	msgpack v5.4.1         3708   3929      251                         86      89      7.0
//
// msgpack (read through the same json tags) does not follow encoding/json's
// rules for embedded structs, so the storage types' shadowing fields (the
// card by reference, the short plan) were written beside the embedded
// domain's own: it would need a second set of types. CBOR reads the tags
// as encoding/json does, keeps `omitzero`, and was 3-4x faster than
// encoding/json and 2-4x faster than msgpack. Integer keys (keyasint) were
// not taken: field names are a minority of a record's bytes once the
// storage types shortened the long ones.
//
// Times are RFC 3339 with nanoseconds, as JSON had them, so every time
// reads back exactly (zone and monotonic reading aside, as with JSON).
// Free-form members (metadata, options) keep their numbers as written:
// a json.Number is stored under tagJSONNumber and decodes to a json.Number.

// recV1 is the format version byte of every record written by this build.
const recV1 = 0x01

// tagJSONNumber marks a json.Number (its text) in free-form members; it is
// in the range RFC 8949 leaves to first come, first served registration.
const tagJSONNumber = 100001

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	tags := cbor.NewTagSet()
	if err := tags.Add(cbor.TagOptions{EncTag: cbor.EncTagRequired, DecTag: cbor.DecTagRequired},
		reflect.TypeFor[json.Number](), tagJSONNumber); err != nil {
		panic(err)
	}
	var err error
	encMode, err = cbor.EncOptions{Time: cbor.TimeRFC3339Nano}.EncModeWithTags(tags)
	if err != nil {
		panic(err)
	}
	decMode, err = cbor.DecOptions{
		DefaultMapType:   reflect.TypeFor[map[string]any](),
		UTF8:             cbor.UTF8DecodeInvalid, // as JSON read them: a string is never refused
		MaxArrayElements: 1 << 24, MaxMapPairs: 1 << 24,
		// The API accepts JSON nested 32 levels deep (metadata, options); a
		// record nests it a few levels further (a session's data, an event's
		// payment), past the decoder's default of 32.
		MaxNestedLevels: 128,
	}.DecModeWithTags(tags)
	if err != nil {
		panic(err)
	}
}

var errNotRecord = errors.New("store: not a record of this format (a JSON record the migration has not converted?)")

// marshal returns v as a stored record: the version byte, then CBOR.
func marshal(v any) ([]byte, error) {
	return appendRecord(make([]byte, 0, 256), v)
}

// appendRecord appends v as a stored record to dst.
func appendRecord(dst []byte, v any) ([]byte, error) {
	b, err := encMode.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(append(dst, recV1), b...), nil
}

// decode reads one stored record into v.
func decode(raw string, v any) error {
	if len(raw) == 0 || raw[0] != recV1 {
		return errNotRecord
	}
	return decMode.Unmarshal([]byte(raw[1:]), v)
}
