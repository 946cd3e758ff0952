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
	in := []byte(`{"id":"pay_1","amount":1000,"date":"2026-11-22T07:30:00Z","cvvCheck":{"result":"MATCHED"},"status":"SETTLED"}`)
	out := Bytes(in, false)
	require.Equal(t, in, out)
	assert.Same(t, &in[0], &out[0])
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { Bytes(in, false) }))
}

func TestSecurityKey(t *testing.T) {
	for k, want := range map[string]bool{"cvv": true, "CVV": true, "Cvc": true, "securityCode": true, "SECURITY_CODE": true,
		"card_code": true, "cardCode": true, "cardSecurityCode": true, "cvv2": true, "number": false, "code": false, "": false} {
		assert.Equal(t, want, SecurityKey(k), k)
	}
}

// testCards pass Luhn; the property test hides them in random documents.
var testCards = []string{"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
	"3530111333300000", "4000000000000002", "4916994064252017", "100000000008", "4000000000000000006"}

// randomDoc puts card (in some spelling) under a random key at a random depth
// as a string, a number, an array item or inside text, with noise around.
func randomDoc(r *rand.Rand, card string) (any, string) {
	spell := card
	switch r.Intn(4) {
	case 1:
		spell = group(card, " ")
	case 2:
		spell = group(card, "-")
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

func TestHead(t *testing.T) {
	assert.Equal(t, `ok 411111******1111`, Head([]byte(`ok 4111111111111111`), 1024))
	assert.Equal(t, `ok ****`, Head([]byte(`ok 4111`), 7), "read up to the limit: cut")
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil)))
	log = log.With("card", "4111111111111111")
	log.Info("paid with 5555555555554444", "path", "/payments/4111111111111111", "cvv", "123",
		"err", errors.New("bad number 4111 1111 1111 1111"), "n", int64(4111111111111111), "ok", 12,
		slog.Group("g", "securityCode", 999, "url", "/x?token=secret"))
	out := buf.String()
	for _, leak := range []string{"4111111111111111", "5555555555554444", "4111 1111 1111 1111", "123 ", "999", "secret"} {
		assert.NotContains(t, out, leak)
	}
	assert.Contains(t, out, "411111******1111")
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
		"valuer":     slog.Any("v", cardValuer{}),
		"bytes":      slog.Any("b", []byte("4111111111111111")),
	}
	for name, a := range attrs {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			slog.New(Handler(slog.NewTextHandler(&buf, nil))).LogAttrs(context.Background(), slog.LevelInfo, "request", a)
			for _, leak := range []string{"4111111111111111", "4111 1111 1111 1111", "123", "999", "secret"} {
				assert.NotContains(t, buf.String(), leak)
			}
		})
	}
	clean := []slog.Attr{slog.String("path", "/payments/abc"), slog.Int("status", 200), slog.Int64("big", -99999999999),
		slog.Any("v", slog.StringValue("x")), slog.Group("g", "k", "v"), slog.Any("err", errors.New("plain"))}
	var want, got bytes.Buffer
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	slog.New(slog.NewTextHandler(&want, opts)).LogAttrs(context.Background(), slog.LevelInfo, "request", clean...)
	slog.New(Handler(slog.NewTextHandler(&got, opts))).LogAttrs(context.Background(), slog.LevelInfo, "request", clean...)
	assert.Equal(t, want.String(), got.String())
}
