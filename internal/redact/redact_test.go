package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBytes(t *testing.T) {
	tests := []struct {
		name, in string
		cut      bool
		want     string
	}{
		{"json string", `{"number":"4111111111111111"}`, false, `{"number":"411111******1111"}`},
		{"json number becomes a string", `{"n":4111111111111111,"m":1}`, false, `{"n":"411111******1111","m":1}`},
		{"json number in an array", `[5555555555554444]`, false, `["555555******4444"]`},
		{"json number with a fraction", `{"n":4111111111111111.5}`, false, `{"n":"411111******1111.5"}`},
		{"spaces kept", `{"pan":"4111 1111 1111 1111"}`, false, `{"pan":"4111 11** **** 1111"}`},
		{"dashes kept", `{"pan":"4111-1111-1111-1111"}`, false, `{"pan":"4111-11**-****-1111"}`},
		{"12 digits", `{"n":"100000000008"}`, false, `{"n":"100000**0008"}`},
		{"19 digits", `{"n":"4000000000000000006"}`, false, `{"n":"400000*********0006"}`},
		{"in free text", `{"note":"card 4111111111111111 failed"}`, false, `{"note":"card 411111******1111 failed"}`},
		{"digits glued to letters", `{"id":"tok4111111111111111x"}`, false, `{"id":"tok411111******1111x"}`},
		{"a number and a year", `{"n":"4111 1111 1111 1111 2030"}`, false, `{"n":"4111 11** **** 1111 2030"}`},
		{"fails Luhn: kept", `{"n":"4111111111111112"}`, false, `{"n":"4111111111111112"}`},
		{"11 digits: kept", `{"n":"41111111113"}`, false, `{"n":"41111111113"}`},
		{"20 digits without separators: kept", `{"n":"41111111111111110000"}`, false, `{"n":"41111111111111110000"}`},
		{"dates and amounts: kept", `{"date":"2026-11-22T07:30:00Z","amount":1000}`, false, `{"date":"2026-11-22T07:30:00Z","amount":1000}`},
		{"escaped digits", `{"n":"\u0034111111111111111"}`, false, `{"n":"411111******1111"}`},
		{"escaped backslash is not an escape", `{"n":"\\u0034"}`, false, `{"n":"\\u0034"}`},
		{"cvv string", `{"cvv":"123","x":1}`, false, `{"cvv":"[REDACTED]","x":1}`},
		{"cvv number", `{"CVV": 123}`, false, `{"CVV": "[REDACTED]"}`},
		{"securityCode nested", `{"a":{"b":[{"securityCode":"1234"}]}}`, false, `{"a":{"b":[{"securityCode":"[REDACTED]"}]}}`},
		{"card_code", `{"card_code":"999"}`, false, `{"card_code":"[REDACTED]"}`},
		{"cvc object", `{"cvc":{"v":"1"},"k":2}`, false, `{"cvc":"[REDACTED]","k":2}`},
		{"escaped key", `{"c\u0076v":"123"}`, false, `{"c\u0076v":"[REDACTED]"}`},
		{"cvv null stays", `{"cvv":null}`, false, `{"cvv":null}`},
		{"cvv as a value is not a key", `{"field":"cvv"}`, false, `{"field":"cvv"}`},
		{"cvv cut", `{"cvv":"12`, true, `{"cvv":"[REDACTED]"`},
		{"challenge token", `{"challengeUrl":"http://h/_sandbox/ui/checkout/challenge?token=abc%2B1"}`, false,
			`{"challengeUrl":"http://h/_sandbox/ui/checkout/challenge?token=[REDACTED]"}`},
		{"cut digit run masked whole", `{"a":"12345`, true, `{"a":"*****`},
		{"cut trailing separator", `{"a":"4111 `, true, `{"a":"**** `},
		{"not cut: short run kept", `{"a":"12345`, false, `{"a":"12345`},
		{"form body", `number=4111111111111111&cvv=123`, false, `number=411111******1111&cvv=[REDACTED]`},
		{"text cvc", `CVC: 999 ok`, false, `CVC: [REDACTED] ok`},
		{"text number stays unquoted", `pan 4111111111111111`, false, `pan 411111******1111`},
		{"uuids are not card numbers", `{"id":"00000000-0000-4000-8000-000000000003","e":"0000000a-0000-4000-8000-000000000003"}`, false,
			`{"id":"00000000-0000-4000-8000-000000000003","e":"0000000a-0000-4000-8000-000000000003"}`},
		{"a card number after a uuid", `{"n":"00000000-0000-4000-8000-000000000003 4111111111111111"}`, false,
			`{"n":"00000000-0000-4000-8000-000000000003 411111******1111"}`},
		{"a leading zero is no card", `{"n":"000000000000"}`, false, `{"n":"000000000000"}`},
		{"cvvCheck is no security code", `{"cvvCheck":{"result":"1234567"}}`, false, `{"cvvCheck":{"result":"1234567"}}`},
		{"nothing to do", `{"id":"pay_1","amount":1000}`, false, `{"id":"pay_1","amount":1000}`},

		// Security-code names: the vendor's and common gateways' spellings.
		{"cv2", `{"cv2":"123"}`, false, `{"cv2":"[REDACTED]"}`},
		{"verificationCode", `{"verificationCode":"1234","x":1}`, false, `{"verificationCode":"[REDACTED]","x":1}`},
		{"cardVerificationValue number", `{"cardVerificationValue":123}`, false, `{"cardVerificationValue":"[REDACTED]"}`},
		{"CVV_Number", `{"CVV_Number":"123"}`, false, `{"CVV_Number":"[REDACTED]"}`},
		{"cvv-number", `{"cvv-number":"123"}`, false, `{"cvv-number":"[REDACTED]"}`},
		{"cvvNumber", `{"cvvNumber":"123"}`, false, `{"cvvNumber":"[REDACTED]"}`},
		{"card_verification_code", `{"card_verification_code":"123"}`, false, `{"card_verification_code":"[REDACTED]"}`},
		{"cid of 4 digits", `{"cid":"1234"}`, false, `{"cid":"[REDACTED]"}`},
		{"CVN of 3 digits", `{"CVN":"123","n":1}`, false, `{"CVN":"[REDACTED]","n":1}`},
		{"cvd as a number", `{"cvd": 123}`, false, `{"cvd": "[REDACTED]"}`},
		{"cid of 5 digits: kept", `{"cid":"12345"}`, false, `{"cid":"12345"}`},
		{"cid of 2 digits: kept", `{"cid":12}`, false, `{"cid":12}`},
		{"cid as a customer id: kept", `{"cid":"cust_42","cvn":"PSP-123","cvd":"1.2"}`, false, `{"cid":"cust_42","cvn":"PSP-123","cvd":"1.2"}`},
		{"cid number with a fraction: kept", `{"cid":123.5}`, false, `{"cid":123.5}`},
		{"cid object: kept, a card inside masked", `{"cid":{"ref":"4111111111111111"}}`, false, `{"cid":{"ref":"411111******1111"}}`},
		{"cid cut", `{"cid":"12`, true, `{"cid":"[REDACTED]"`},
		{"customerCid is no key", `{"customerCid":"123"}`, false, `{"customerCid":"123"}`},
		{"text new names", `cv2=123&cid=1234&cvn=99999&verification_code=777`, false, `cv2=[REDACTED]&cid=[REDACTED]&cvn=99999&verification_code=[REDACTED]`},
		{"text spaced name", `card verification value: 4321`, false, `card verification value: [REDACTED]`},
		{"text cid inside a word: kept", `acid 123, lucid: 456`, false, `acid 123, lucid: 456`},
		{"text cid at a camel hump", `cardCid=123`, false, `cardCid=[REDACTED]`},
		{"json text cid", `{"note":"cid 123 ok"}`, false, `{"note":"cid [REDACTED] ok"}`},

		// Card numbers with dots, slashes or several spaces between groups.
		{"dots", `{"pan":"4111.1111.1111.1111"}`, false, `{"pan":"4111.11**.****.1111"}`},
		{"slashes", `{"pan":"4111/1111/1111/1111"}`, false, `{"pan":"4111/11**/****/1111"}`},
		{"double spaces", `{"pan":"4111  1111  1111  1111"}`, false, `{"pan":"4111  11**  ****  1111"}`},
		{"mixed separators", `pan 5555 5555.5555/4444 end`, false, `pan 5555 55**.****/4444 end`},
		{"amex with dots", `{"pan":"3782.822463.10005"}`, false, `{"pan":"3782.82****.*0005"}`},
		{"19 digits with dots", `{"pan":"4000.0000.0000.0000.006"}`, false, `{"pan":"4000.00**.****.***0.006"}`},
		{"dots after a date", `{"n":"2026/11/28 4111.1111.1111.1111"}`, false, `{"n":"2026/11/28 4111.11**.****.1111"}`},
		{"date: kept", `{"d":"2026/11/28","e":"28.11.2026"}`, false, `{"d":"2026/11/28","e":"28.11.2026"}`},
		{"date and a time passing Luhn: kept", `{"d":"2026/11/28 1009"}`, false, `{"d":"2026/11/28 1009"}`},
		{"dotted date-time passing Luhn: kept", `{"d":"2026.11.28.100009"}`, false, `{"d":"2026.11.28.100009"}`},
		{"IPv4 passing Luhn: kept", `{"ip":"192.168.100.100"}`, false, `{"ip":"192.168.100.100"}`},
		{"version passing Luhn: kept", `v1.2.3.4.5.6.7.8.9.1.2.1007`, false, `v1.2.3.4.5.6.7.8.9.1.2.1007`},
		{"amounts passing Luhn: kept", `{"a":"1004.00 2000.00"}`, false, `{"a":"1004.00 2000.00"}`},
		{"cut after a dot", `{"a":"4111.`, true, `{"a":"****.`},
		{"cut in spaces", `{"a":"4111  `, true, `{"a":"****  `},
		{"empty", ``, true, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(Bytes([]byte(tc.in), tc.cut)))
		})
	}
}

// TestBytesUnchangedIsSame: text with nothing to mask comes back as the
// same slice (no copy on the hot path).
func TestBytesUnchangedIsSame(t *testing.T) {
	assert.False(t, needsPass(`{"cvvCheck":1,"currencyCode":"EUR","transactions":[],"threeDSecure":true}`, false), "a payment answer's words")
	for _, s := range []string{"decided, incident, acid. Lucid, precision; verified version, severity, cards", "cvvCheck",
		"2026/11/28 28.11.2026 v1.24.3 192.168.100.100 1004.00 EUR", "10.0.19045.3693", "1234.5678.90", "12  3456  7890"} {
		assert.False(t, needsPass(s, false), s)
	}
	in := []byte(`{"id":"pay_1","amount":1000,"date":"2026-11-22T07:30:00Z","cvvCheck":{"result":"MATCHED"},"status":"SETTLED"}`)
	out := Bytes(in, false)
	require.Equal(t, in, out)
	assert.Same(t, &in[0], &out[0])
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { Bytes(in, false) }))
}

func TestSecurityKey(t *testing.T) {
	for k, want := range map[string]keyKind{
		"cvv": keyCode, "CVV": keyCode, "Cvc": keyCode, "securityCode": keyCode, "SECURITY_CODE": keyCode,
		"card_code": keyCode, "cardCode": keyCode, "cardSecurityCode": keyCode, "cvv2": keyCode, "csc": keyCode,
		"cv2": keyCode, "CV2": keyCode, "verificationCode": keyCode, "verification_code": keyCode, "VERIFICATION-CODE": keyCode,
		"cardVerificationValue": keyCode, "card_verification_value": keyCode, "CardVerificationCode": keyCode,
		"cvv_number": keyCode, "CVV_Number": keyCode, "cvv-number": keyCode, "cvvNumber": keyCode, "cvcNumber": keyCode,
		"cid": keyShortCode, "CID": keyShortCode, "cvn": keyShortCode, "Cvd": keyShortCode,
		"number": keyOther, "code": keyOther, "": keyOther, "cvvCheck": keyOther, "customer_id": keyOther, "cvv_numbers": keyOther,
		"verification": keyOther, strings.Repeat("cvv", 20): keyOther, "c_v_v": keyOther, "_cvv": keyOther, "cvv_": keyOther,
		"security code": keyOther, "cvv__number": keyOther, "CARD-verification_Value": keyCode,
	} {
		assert.Equal(t, want, securityKey(k), k)
	}
}

// TestCodeNames: the table's names are lower-case letters and digits with
// a first word of two letters or more (codeNameAt's filter reads a name's
// first two letters), and none is listed twice.
func TestCodeNames(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range securityCodeNames {
		words := strings.Fields(n.words)
		require.NotEmpty(t, words, n.words)
		assert.GreaterOrEqual(t, len(words[0]), 2, n.words)
		assert.True(t, isLetter(words[0][0]) && isLetter(words[0][1]), n.words)
		for _, c := range n.words {
			assert.True(t, c == ' ' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9', n.words)
		}
		joined := strings.Join(words, "")
		assert.False(t, seen[joined], "listed twice: %s", n.words)
		seen[joined] = true
	}
}

func TestTailRun(t *testing.T) {
	for in, want := range map[string]int{
		"":                   0,
		"ok":                 2,
		"ok 4111":            3,
		"ok 4111 1111-":      3,
		"ok 4111.1111/1111 ": 3,
		"ok 4111  1111   ":   3,
		"ok 12.4111":         6, // a dot after 2 digits joins nothing
		"ok 12  4111":        7,
		"ok 4111. ":          9,
		"ok 4111--":          9,
		"4111 1111":          0,
		"2026/11/28":         8,
	} {
		assert.Equal(t, want, TailRun([]byte(in)), "%q", in)
		if want < len(in) {
			assert.True(t, needsPass(in, true), "%q: a cut text ending in a run needs the pass", in)
			assert.NotContains(t, string(Bytes([]byte(in), true))[want:], "1", "%q: the tail run masked whole", in)
		}
	}
}

// testCards pass Luhn; the property test hides them in random documents.
var testCards = []string{"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
	"3530111333300000", "4000000000000002", "4916994064252017", "100000000008", "4000000000000000006"}

// randomDoc puts card (in some spelling) under a random key at a random depth
// as a string, a number, an array item or inside text, with noise around.
func randomDoc(r *rand.Rand, card string) (any, string) {
	spell := card
	if r.Intn(2) == 1 {
		spell = group(card, []string{" ", "-", ".", "/", "  ", "   "}[r.Intn(6)])
	}
	var leaf any
	switch r.Intn(4) {
	case 0:
		leaf = spell
	case 1:
		n, _ := strconv.ParseUint(card, 10, 64)
		leaf = json.Number(strconv.FormatUint(n, 10))
	case 2:
		leaf = []any{"x", spell, 7}
	default:
		leaf = "card " + spell + " was declined"
	}
	keys := []string{"number", "pan", "x", "metadata", "note", "a_b", "Number", "data", "k" + strconv.Itoa(r.Intn(100))}
	doc := leaf
	for d := r.Intn(6); d >= 0; d-- {
		m := map[string]any{keys[r.Intn(len(keys))]: doc, "amount": r.Intn(100000), "id": "pay_" + strconv.Itoa(r.Intn(1000))}
		if r.Intn(3) == 0 {
			doc = []any{m}
		} else {
			doc = m
		}
	}
	return doc, spell
}

func group(card, sep string) string {
	var parts []string
	for i := 0; i < len(card); i += 4 {
		parts = append(parts, card[i:min(i+4, len(card))])
	}
	return strings.Join(parts, sep)
}

// TestPropertyNoCardSurvives: whatever the key, depth and type, no card
// number (in any spelling, nor its digits run together) is left.
func TestPropertyNoCardSurvives(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		card := testCards[r.Intn(len(testCards))]
		doc, spell := randomDoc(r, card)
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		out := string(Bytes(b, false))
		digitsOnly := strings.Map(func(c rune) rune {
			if c >= '0' && c <= '9' {
				return c
			}
			return -1
		}, out)
		require.NotContains(t, out, spell, "%s", b)
		require.NotContains(t, digitsOnly, card, "%s -> %s", b, out)
		if out[0] == '{' || out[0] == '[' {
			require.True(t, json.Valid([]byte(out)), "still JSON: %s", out)
		}
	}
}

// spellName writes a security-code name's words as a key may: each word
// lower, upper or title case, joined by nothing, "_" or "-".
func spellName(r *rand.Rand, words []string) string {
	var b strings.Builder
	join := []string{"", "_", "-"}[r.Intn(3)]
	for i, w := range words {
		if i > 0 {
			b.WriteString(join)
		}
		switch r.Intn(3) {
		case 0:
			b.WriteString(w)
		case 1:
			b.WriteString(strings.ToUpper(w))
		default:
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// TestPropertyNoCodeSurvives: under every name of the table, in any
// spelling, at any depth, a security code (string or number) is masked; a
// value other than 3 or 4 digits under a short-code name stays.
func TestPropertyNoCodeSurvives(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 3000; i++ {
		name := securityCodeNames[r.Intn(len(securityCodeNames))]
		key := spellName(r, strings.Fields(name.words))
		code := strconv.Itoa(100 + r.Intn(9900))
		var value any = code
		if r.Intn(2) == 0 {
			value = json.Number(code)
		}
		kept := name.shortCode && r.Intn(3) == 0
		if kept {
			value = []any{"cust_" + code, code + "00", json.Number(code + ".5"), "1.23"}[r.Intn(4)]
		}
		doc := map[string]any{key: value, "amount": r.Intn(100000)}
		for d := r.Intn(4); d > 0; d-- {
			doc = map[string]any{"k" + strconv.Itoa(d): []any{doc}, "id": "pay_" + strconv.Itoa(r.Intn(1000))}
		}
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		out := Bytes(b, false)
		require.True(t, json.Valid(out), "still JSON: %s", out)
		want := `"` + key + `":"` + Marker + `"`
		if kept {
			v, _ := json.Marshal(value)
			want = `"` + key + `":` + string(v)
		}
		require.Contains(t, string(out), want, "%s", b)
	}
}

func TestHead(t *testing.T) {
	assert.Equal(t, `ok 411111******1111`, Head([]byte(`ok 4111111111111111`), 1024))
	assert.Equal(t, `ok ****`, Head([]byte(`ok 4111`), 7), "read up to the limit: cut")
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil)))
	log = log.With("card", "4111111111111111")
	log.Info("paid with 5555555555554444", "path", "/payments/4111111111111111", "cvv", "123", "CID", 4321, "cvn", "88888",
		"err", errors.New("bad number 4111 1111 1111 1111"), "n", int64(4111111111111111), "ok", 12,
		slog.Group("g", "securityCode", 999, "url", "/x?token=secret"))
	out := buf.String()
	for _, leak := range []string{"4111111111111111", "5555555555554444", "4111 1111 1111 1111", "123 ", "999", "secret", "4321"} {
		assert.NotContains(t, out, leak)
	}
	assert.Contains(t, out, "411111******1111")
	assert.Contains(t, out, "cvn=88888", "5 digits under cvn are no security code")
	assert.Contains(t, out, "ok=12")
	assert.True(t, Handler(slog.NewTextHandler(&buf, nil)).Enabled(context.Background(), slog.LevelInfo))
}

// cardValuer is a LogValuer that resolves to a card number.
type cardValuer struct{}

func (cardValuer) LogValue() slog.Value { return slog.StringValue("pan 4111111111111111") }

// TestHandlerEachAttr: a line whose message is clean is still masked when
// one attribute alone needs it, whatever its kind; a clean line is written
// exactly as the wrapped handler writes it.
func TestHandlerEachAttr(t *testing.T) {
	attrs := map[string]slog.Attr{
		"string":     slog.String("path", "/payments/4111111111111111"),
		"key":        slog.Int("cvv", 123),
		"error":      slog.Any("err", errors.New("bad number 4111 1111 1111 1111")),
		"int64":      slog.Int64("n", 4111111111111111),
		"uint64":     slog.Uint64("n", 4111111111111111),
		"group":      slog.Group("g", "securityCode", 999),
		"group text": slog.Group("g", "url", "/x?token=secret"),
		"short code": slog.Int("cid", 123),
		"new name":   slog.String("verificationCode", "999"),
		"dots":       slog.String("pan", "4111.1111.1111.1111"),
		"valuer":     slog.Any("v", cardValuer{}),
		"bytes":      slog.Any("b", []byte("4111111111111111")),
	}
	// The time is dropped: a clock reading such as 08:55:51.123 would
	// otherwise contain a leak pattern by chance.
	noTime := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for name, a := range attrs {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			slog.New(Handler(slog.NewTextHandler(&buf, noTime))).LogAttrs(context.Background(), slog.LevelInfo, "request", a)
			for _, leak := range []string{"4111111111111111", "4111 1111 1111 1111", "4111.1111.1111.1111", "123", "999", "secret"} {
				assert.NotContains(t, buf.String(), leak)
			}
		})
	}
	clean := []slog.Attr{slog.String("path", "/payments/abc"), slog.Int("status", 200), slog.Int64("big", -99999999999), slog.Int("cid", 12345),
		slog.String("client", "192.168.100.100"),
		slog.Any("v", slog.StringValue("x")), slog.Group("g", "k", "v"), slog.Any("err", errors.New("plain"))}
	var want, got bytes.Buffer
	opts := noTime
	slog.New(slog.NewTextHandler(&want, opts)).LogAttrs(context.Background(), slog.LevelInfo, "request", clean...)
	slog.New(Handler(slog.NewTextHandler(&got, opts))).LogAttrs(context.Background(), slog.LevelInfo, "request", clean...)
	assert.Equal(t, want.String(), got.String())
}
