package simulator

import (
	"strings"
	"testing"
)

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

func TestTenantOfToken(t *testing.T) {
	for _, tc := range []struct{ inst, tid, tok string }{
		{"", "t_Abc123", "cst_qwerty-_xyz"},
		{"eu-1", "t_Abc123", "cst_qwerty"},
		{"", "default", "6f1c2d0e-0000-4000-8000-000000000000"},
		{"a", "odd:id/with~chars", "cst_z"},
	} {
		tok := WithInstance(tc.inst, WithTenant(tc.tid, tc.tok))
		got, ok := TenantOfToken(tok)
		if !ok || got != tc.tid {
			t.Errorf("TenantOfToken(%q) = %q, %v; want %q", tok, got, ok, tc.tid)
		}
		if InstanceOf(tok) != tc.inst {
			t.Errorf("InstanceOf(%q) = %q; want %q", tok, InstanceOf(tok), tc.inst)
		}
	}
	for _, tok := range []string{"cst_old0123", "eu-1.cst_old", "6f1c2d0e-0000-4000-8000-000000000000", "~x", "cst_!!~x"} {
		if id, ok := TenantOfToken(tok); ok {
			t.Errorf("TenantOfToken(%q) = %q, true; want none", tok, id)
		}
	}
}

// TestSessionOfToken: a token made by WithSession carries its tenant and
// its session, with or without an instance prefix and whatever the shape
// of the rest; a token without a session part (a challenge token, one of
// an earlier build) or with a session id that is not a lower-case UUID
// carries none.
func TestSessionOfToken(t *testing.T) {
	const sid = "0190a5c4-1b2e-4f3a-8b4c-5d6e7f809112"
	for _, tc := range []struct{ inst, tid, sid, tok, want string }{
		{"", "t_Abc123", sid, "cst_qwerty-_xyz", sid},
		{"eu-1", "t_Abc123", sid, "cst_qwerty", sid},
		{"", "default", sid, "test_000001", sid},
		{"a", "odd:id/with~chars", sid, "cst_z", sid},
		{"", "t1", "S1", "cst_z", ""},
		{"", "t1", "0190A5C4-1B2E-4F3A-8B4C-5D6E7F809112", "cst_z", ""},
	} {
		tok := WithInstance(tc.inst, WithSession(tc.tid, tc.sid, tc.tok))
		if got, ok := TenantOfToken(tok); !ok || got != tc.tid {
			t.Errorf("TenantOfToken(%q) = %q, %v; want %q", tok, got, ok, tc.tid)
		}
		got, ok := SessionOfToken(tok)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("SessionOfToken(%q) = %q, %v; want %q", tok, got, ok, tc.want)
		}
		if !strings.HasSuffix(tok, strings.TrimPrefix(tc.tok, "cst_")) {
			t.Errorf("%q does not end with the generated part of %q", tok, tc.tok)
		}
	}
	for _, tok := range []string{"cst_old0123", WithTenant("t1", "cst_old"), WithTenant("t1", "6f1c2d0e-0000-4000-8000-000000000000"),
		WithTenant("t1", "cst_short~x"), WithTenant("t1", "cst_!!!!!!!!!!!!!!!!!!!!!!~x"), ""} {
		if id, ok := SessionOfToken(tok); ok {
			t.Errorf("SessionOfToken(%q) = %q, true; want none", tok, id)
		}
	}
	if SessionTag(sid) == "" || len(SessionTag(sid)) != 22 || SessionTag("S1") != "" {
		t.Errorf("SessionTag(%q) = %q", sid, SessionTag(sid))
	}
}
