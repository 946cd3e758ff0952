package redact

import (
	"encoding/json"
	"testing"
)

// FuzzBytes: any input is masked without a panic, cut or not; a JSON
// object or array stays JSON when it was not cut; text the cheap scan finds
// nothing in is returned as it is, and the full pass would not change it
// either.
func FuzzBytes(f *testing.F) {
	for _, s := range []string{`{"n":"4111111111111111","cvv":"123"}`, `[4111111111111111.5e3]`, `{"c\u0076v":{"a":[1,"2"]}}`,
		`x?token=abc&cvv=12 4111-1111-1111-1111`, `{"a":"\u0034111111111111111"}`, `00000000-0000-4000-8000-000000000003`, `{"cvv":`,
		`{"cid":"1234","CVV_Number":5,"n":"4111.1111/1111  1111"}`, `{"c_v_v":"1","card-verification_Value":2}`, `cid=12 2026/11/28 192.168.100.100 4111.`, `{"cvn":12`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, cut bool) {
		in := append([]byte(nil), b...)
		out := Bytes(b, cut)
		if string(in) != string(b) {
			t.Fatalf("the input was written to")
		}
		if !cut && looksJSON(in) && json.Valid(in) && !json.Valid(out) {
			t.Fatalf("JSON in, not JSON out:\n%s\n%s", in, out)
		}
		if !needsPass(in, cut) {
			if string(out) != string(in) {
				t.Fatalf("changed text that needs no pass")
			}
			p := pass{in: in, cut: cut, json: looksJSON(in)}
			if p.run(); p.out != nil {
				t.Fatalf("the cheap scan passed over what the pass masks:\n%q\n%q", in, append(p.out, in[p.done:]...))
			}
		}
	})
}
