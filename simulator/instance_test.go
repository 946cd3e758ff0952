package simulator

import "testing"

func TestInstanceNames(t *testing.T) {
	for _, tc := range []struct {
		cred, self, of, foreign string
	}{
		{"a.sk_x", "a", "a", ""},
		{"a.sk_x", "b", "a", "a"},
		{"a.sk_x", "", "a", ""}, // an unnamed instance never names another
		{"sk_x", "a", "", ""},
		{"eu-1.cst_abc.def", "a", "eu-1", "eu-1"},
		{"eyJ0Ijo.mac", "a", "", ""}, // an unprefixed cookie: not a name
		{"A.key", "a", "", ""},
		{"-a.key", "a", "", ""},
		{".key", "a", "", ""},
	} {
		if got := InstanceOf(tc.cred); got != tc.of {
			t.Errorf("InstanceOf(%q) = %q, want %q", tc.cred, got, tc.of)
		}
		if got := ForeignInstance(tc.self, tc.cred); got != tc.foreign {
			t.Errorf("ForeignInstance(%q, %q) = %q, want %q", tc.self, tc.cred, got, tc.foreign)
		}
	}
	if WithInstance("", "k") != "k" || WithInstance("a", "k") != "a.k" {
		t.Error("WithInstance")
	}
}
