package simulator

import (
	"regexp"
	"testing"

	"github.com/google/uuid"
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
