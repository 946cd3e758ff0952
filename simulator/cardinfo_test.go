package simulator_test

import (
	"strings"
	"testing"

	"github.com/paysandbox/paysandbox/simulator"
)

func TestLuhnValid(t *testing.T) {
	tests := []struct {
		name   string
		number string
		want   bool
	}{
		{"visa 16", "4111111111111111", true},
		{"visa 16 b", "4242424242424242", true},
		{"mastercard", "5555555555554444", true},
		{"mastercard 2-series", "2223003122003222", true},
		{"amex 15", "378282246310005", true},
		{"diners 14", "36227206271667", true},
		{"12 digits, shortest allowed", "500000000009", true},
		{"19 digits, longest allowed", "6799990100000000019", true},
		{"visa 19", "4111111111111111110", true},
		{"all zeros 12", "000000000000", true},
		{"bad check digit", "4111111111111112", false},
		{"bad check digit amex", "378282246310006", false},
		{"transposed digits", "4111111111111141", false},
		{"11 digits passing the checksum", "00000000000", false},
		{"20 digits passing the checksum", "00000000000000000000", false},
		{"empty", "", false},
		{"spaces", "4111 1111 1111 1111", false},
		{"dashes", "4111-1111-1111-1111", false},
		{"letter", "41111111111111a1", false},
		{"leading space", " 4111111111111111", false},
		{"sign", "+4111111111111111", false},
		{"full-width digits", "４１１１１１１１１１１１１１１１", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := simulator.LuhnValid(tt.number); got != tt.want {
				t.Errorf("LuhnValid(%q) = %v, want %v", tt.number, got, tt.want)
			}
		})
	}
}

func TestCardFingerprint(t *testing.T) {
	// Pinned: scenarios stored with this fingerprint must keep matching.
	const want = "a087c6b4e8732527feb2d85b74be9786cdf4e368768d56e65753aba7a7a5d556"
	if got := simulator.CardFingerprint("4111111111111111"); got != want {
		t.Errorf("CardFingerprint = %s, want %s", got, want)
	}
	if simulator.CardFingerprint("4111111111111111") == simulator.CardFingerprint("4242424242424242") {
		t.Error("different numbers share a fingerprint")
	}
	if got := simulator.CardFingerprint("4242424242424242"); len(got) != 64 || strings.Contains(got, "4242424242424242") {
		t.Errorf("fingerprint %q is not 64 hex characters free of the number", got)
	}
}
