package store

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodingJSON is encoding/json's encoding of v with HTML escaping off, without
// the trailing newline.
func encodingJSON(t *testing.T, v any) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), err
}

func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `"\`, "<>&", "\u2028\u2029", "\x7f", "\xff", "\xc3", "\xed\xa0\x80", "é日😀", "\ufffd"}
	for b := range 256 { // every byte alone and inside text
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, s := range cases {
		want, err := encodingJSON(t, s)
		require.NoError(t, err)
		assert.Equal(t, want, string(jsonString(nil, s)), "%q", s)
	}
}

func TestJSONFieldsMatchEncodingJSON(t *testing.T) {
	n, tr, empty := int64(-42), true, ""
	type fields struct {
		S  string  `json:"s"`
		O  string  `json:"o,omitempty"`
		SP *string `json:"sp,omitempty"`
		I  int64   `json:"i"`
		OI int64   `json:"oi,omitempty"`
		IP *int64  `json:"ip,omitempty"`
		B  bool    `json:"b"`
		OB bool    `json:"ob,omitempty"`
		BP *bool   `json:"bp,omitempty"`
	}
	for _, v := range []fields{{}, {S: "x<", O: "y\n", SP: &empty, I: math.MinInt64, OI: -1, IP: &n, B: true, OB: true, BP: &tr}} {
		want, err := encodingJSON(t, v)
		require.NoError(t, err)
		got := []byte{'{'}
		got = stringField(got, "s", v.S)
		got = omitString(got, "o", v.O)
		got = omitStringPtr(got, "sp", v.SP)
		got = intField(got, "i", v.I)
		got = omitInt(got, "oi", v.OI)
		got = omitIntPtr(got, "ip", v.IP)
		got = boolField(got, "b", v.B)
		got = omitBool(got, "ob", v.OB)
		got = omitBoolPtr(got, "bp", v.BP)
		assert.Equal(t, want, string(append(got, '}')))
	}
}
