package jsonappend

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encode is encoding/json's encoding of v with HTML escaping off, without
// the trailing newline.
func encode(t *testing.T, v any) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), err
}

func TestStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `"\`, "<>&", "\u2028\u2029", "\x7f", "\xff", "\xc3", "\xed\xa0\x80", "é日😀", "\ufffd"}
	for b := range 256 { // every byte alone and inside text
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, s := range cases {
		want, err := encode(t, s)
		require.NoError(t, err)
		assert.Equal(t, want, string(String(nil, s)), "%q", s)
	}
}

func TestFieldsMatchEncodingJSON(t *testing.T) {
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
		want, err := encode(t, v)
		require.NoError(t, err)
		got := []byte{'{'}
		got = StringField(got, "s", v.S)
		got = OmitString(got, "o", v.O)
		got = OmitStringPtr(got, "sp", v.SP)
		got = IntField(got, "i", v.I)
		got = OmitInt(got, "oi", v.OI)
		got = OmitIntPtr(got, "ip", v.IP)
		got = BoolField(got, "b", v.B)
		got = OmitBool(got, "ob", v.OB)
		got = OmitBoolPtr(got, "bp", v.BP)
		assert.Equal(t, want, string(append(got, '}')))
	}
}

func TestFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		want, wantErr := encode(t, f)
		got, err := Float(nil, f)
		if wantErr != nil {
			require.Error(t, err, "%v", f)
			assert.Equal(t, wantErr.Error(), err.Error())
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, want, string(got), "%v", f)
	}
}
