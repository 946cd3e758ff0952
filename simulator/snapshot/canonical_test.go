package snapshot_test

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// TestCanonicalJSONRFC8785: the examples of RFC 8785 (section 3.2.2's
// document, 3.2.3's member order, appendix B's numbers).
func TestCanonicalJSONRFC8785(t *testing.T) {
	docs := []struct{ name, in, want string }{
		{"section 3.2.2", `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`, `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		{"section 3.2.3: sorted by UTF-16 code units", `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`, "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"דּ\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{"whitespace and HTML escapes", "{ \"b\" : \"\\u003c&\\u003e\u2028\" ,\n\"a\":[ ] , \"c\":{} }", "{\"a\":[],\"b\":\"<&>\u2028\",\"c\":{}}"},
		{"nested objects sorted too", `{"z":{"b":1,"a":[{"d":0,"c":-0}]},"a":true}`, `{"a":true,"z":{"a":[{"c":0,"d":0}],"b":1}}`},
		{"control characters", "\"\\u0000\\u001f\\b\\f\\t\\u007f\"", "\"\\u0000\\u001f\\b\\f\\t\u007f\""},
	}
	for _, tc := range docs {
		t.Run(tc.name, func(t *testing.T) {
			got, err := snapshot.CanonicalJSON([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}

	numbers := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tc := range numbers {
		t.Run("number "+tc.want, func(t *testing.T) {
			lit := strconv.FormatFloat(math.Float64frombits(tc.bits), 'g', -1, 64)
			got, err := snapshot.CanonicalJSON([]byte("[" + lit + "]"))
			require.NoError(t, err)
			assert.Equal(t, "["+tc.want+"]", string(got))
		})
	}
}

// TestCanonicalJSONNumbers: integers within 2^53 stay as written, larger
// ones become the nearest double (documented), spellings of one number
// agree, and what a double cannot hold is an error.
func TestCanonicalJSONNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1000", "1000"},
		{"-5", "-5"},
		{"1.0", "1"},
		{"1e3", "1000"},
		{"9007199254740991", "9007199254740991"},
		{"9007199254740993", "9007199254740992"},
		{"12345678901234567890", "12345678901234567000"},
		{"1.2345678901234567e+19", "12345678901234567000"},
		{"-0.0", "0"},
	}
	for _, tc := range tests {
		got, err := snapshot.CanonicalJSON([]byte(tc.in))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
	got, err := snapshot.CanonicalJSON([]byte(`{"a":1,"b":0,"a":2}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":2,"b":0}`, string(got), "a name twice counts once, with its last value, as encoding/json reads it")
	for _, bad := range []string{"1e400", `{"a":1} {}`, `{"a":`, `[1,]`} {
		_, err := snapshot.CanonicalJSON([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// TestCanonicalJSONRoundTrips: what a Go map round trip makes of a document
// (sorted keys, HTML escapes, numbers as float64) has the same canonical
// form.
func TestCanonicalJSONRoundTrips(t *testing.T) {
	doc := `{"z":"<b>&amp;</b>","a":{"n":12345678901234567890,"f":0.1,"i":1000,"s":"é\u2028"},"l":[3,2,1]}`
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &m))
	again, err := json.Marshal(m)
	require.NoError(t, err)
	a, err := snapshot.CanonicalJSON([]byte(doc))
	require.NoError(t, err)
	b, err := snapshot.CanonicalJSON(again)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}
