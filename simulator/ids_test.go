package simulator

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRandomProcessorIDs: processor transaction ids and authorization codes
// look like each processor's own and do not repeat.
func TestRandomProcessorIDs(t *testing.T) {
	tests := []struct {
		processor string
		txn, code *regexp.Regexp
	}{
		{"STRIPE", regexp.MustCompile(`^ch_[0-9A-Za-z]{24}$`), regexp.MustCompile(`^[0-9]{6}$`)},
		{"ADYEN", regexp.MustCompile(`^[1-9][0-9]{15}$`), regexp.MustCompile(`^[0-9]{6}$`)},
		{"BRAINTREE", regexp.MustCompile(`^[0-9a-z]{8}$`), regexp.MustCompile(`^[0-9A-Z]{6}$`)},
		{"ACME", regexp.MustCompile(`^[0-9A-Za-z]{13}$`), regexp.MustCompile(`^[0-9]{6}$`)},
	}
	for _, tt := range tests {
		t.Run(tt.processor, func(t *testing.T) {
			seen := map[string]bool{}
			for range 1000 {
				id := NewProcessorID(RandomIDs{}, IDProcessorTxn, tt.processor)
				if !tt.txn.MatchString(id) {
					t.Fatalf("transaction id %q does not match %s", id, tt.txn)
				}
				if seen[id] {
					t.Fatalf("transaction id %q repeated", id)
				}
				seen[id] = true
				if c := NewProcessorID(RandomIDs{}, IDAuthCode, tt.processor); !tt.code.MatchString(c) {
					t.Fatalf("authorization code %q does not match %s", c, tt.code)
				}
			}
		})
	}
	// An IDGen without processor shapes gives its own ids.
	if a := NewProcessorID(plainIDs{}, IDProcessorTxn, "STRIPE"); a != "plain" {
		t.Errorf("an IDGen without ProcessorID gave %q", a)
	}
}

// plainIDs is an IDGen that does not shape processor ids.
type plainIDs struct{}

func (plainIDs) NewID(IDKind) string { return "plain" }

// TestRandomUUIDs checks RandomIDs' UUIDs: version 4, RFC 4122 variant, the
// 36-character text form, no two alike.
func TestRandomUUIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := RandomIDs{}.NewID(IDUUID)
		u, err := uuid.Parse(s)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || len(s) != 36 || seen[s] {
			t.Fatalf("%q: %v, version %d, variant %v, seen %v", s, err, u.Version(), u.Variant(), seen[s])
		}
		seen[s] = true
	}
}

// TestTimedUUIDs: an event id of RandomIDs is a UUID version 7 of its
// creation time that gives back that time to the microsecond, for every
// microsecond of a millisecond; ids sort in time order to the
// microsecond; a time out of version 7's range gets a random UUID.
func TestTimedUUIDs(t *testing.T) {
	base := time.UnixMilli(1764400000123).UTC()
	var ids []string
	seen := map[string]bool{}
	for sub := range 1000 {
		at := base.Add(time.Duration(sub)*time.Microsecond + 999) // nanoseconds below the microsecond are not kept
		id := NewEventID(RandomIDs{}, at)
		u, err := uuid.Parse(id)
		require.NoError(t, err, id)
		require.Equal(t, uuid.Version(7), u.Version(), id)
		require.Equal(t, uuid.RFC4122, u.Variant(), id)
		require.Equal(t, strings.ToLower(u.String()), id)
		require.Equal(t, base.UnixMilli(), time.Unix(u.Time().UnixTime()).UnixMilli(), "uuid reads the millisecond back: %s", id)
		us, ok := UUIDMicros(id)
		require.True(t, ok, id)
		require.Equal(t, at.UnixMicro(), us, id)
		require.False(t, seen[id])
		seen[id] = true
		ids = append(ids, id)
	}
	assert.True(t, slices.IsSorted(ids), "ids of later microseconds sort after")

	for _, at := range []time.Time{time.Unix(0, 0), time.UnixMicro(maxUUIDMillis*1000 - 1)} {
		us, ok := UUIDMicros(NewEventID(RandomIDs{}, at))
		assert.True(t, ok, "%v", at)
		assert.Equal(t, at.UnixMicro(), us)
	}
	for _, at := range []time.Time{time.Unix(-1, 0), time.UnixMicro(maxUUIDMillis * 1000)} {
		id := NewEventID(RandomIDs{}, at)
		u, err := uuid.Parse(id)
		require.NoError(t, err)
		assert.Equal(t, uuid.Version(4), u.Version(), "%v: %s", at, id)
		_, ok := UUIDMicros(id)
		assert.False(t, ok)
	}
}

// TestUUIDMicros: only a lower-case version 7 UUID whose rand_a holds
// microseconds as TimedUUID puts them carries a time; ids of other shapes
// (random, a test's fixed ids, another generator's version 7) carry none.
func TestUUIDMicros(t *testing.T) {
	good := NewEventID(RandomIDs{}, time.UnixMicro(1764400000123457))
	us, ok := UUIDMicros(good)
	require.True(t, ok)
	require.Equal(t, int64(1764400000123457), us)
	for name, id := range map[string]string{
		"random":                 RandomIDs{}.NewID(IDUUID),
		"fixed":                  "00000000-0000-4000-8000-000000000005",
		"upper case":             strings.ToUpper(good),
		"rand_a not from micros": good[:15] + "001" + good[18:],
		"rand_a past 999 us":     good[:15] + "fff" + good[18:],
		"variant":                good[:19] + "c" + good[20:],
		"not hex":                good[:30] + "g" + good[31:],
		"short":                  good[:35],
		"no dashes":              strings.ReplaceAll(good, "-", "") + "xxxx",
		"":                       "",
	} {
		_, ok := UUIDMicros(id)
		assert.False(t, ok, "%s: %q", name, id)
	}
	type seq struct{ IDGen }
	assert.Equal(t, "x", NewEventID(seq{fixedIDs("x")}, time.Now()), "an IDGen without TimedUUID makes the id")
}

type fixedIDs string

func (f fixedIDs) NewID(IDKind) string { return string(f) }
