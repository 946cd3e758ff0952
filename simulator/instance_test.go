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
