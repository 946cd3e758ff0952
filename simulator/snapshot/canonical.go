package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// CanonicalJSON re-encodes one JSON value per RFC 8785 (JSON
// Canonicalization Scheme): object members sorted by the UTF-16 code units
// of their names, no insignificant whitespace, strings with JCS's escapes
// (", \, and the control characters below U+0020, \b \t \n \f \r by name and
// the others as lower-case \u00xx; everything else as UTF-8 itself), and
// numbers as ECMAScript writes a double (Number.prototype.toString). So two
// documents that differ only in member order, whitespace, escapes or the
// spelling of a number (1.0, 1e0, 1) have the same canonical form.
//
// Numbers are compared as IEEE 754 doubles, as JCS says: integers beyond
// 2^53 (9007199254740992) become the nearest double (12345678901234567890
// is written 12345678901234567000), so two such integers that round to the
// same double share a canonical form. A number beyond the double range
// (1e400) is an error, as json.Unmarshal says. A member name that appears twice in one object
// counts once, with its last value, as encoding/json (and jq, and Python)
// read it. Invalid UTF-8 is read as U+FFFD, as encoding/json reads it.
func CanonicalJSON(doc []byte) ([]byte, error) { return canonicalJSON(doc, "") }

// canonicalJSON is CanonicalJSON leaving out the top-level member named
// skip ("": none) of a document that is an object. The document is read
// whole by json.Unmarshal, numbers as float64: the doubles JCS writes.
func canonicalJSON(doc []byte, skip string) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	if skip != "" {
		top, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("the document is not a JSON object")
		}
		delete(top, skip)
	}
	buf := bytes.NewBuffer(make([]byte, 0, len(doc)))
	writeCanonical(buf, v)
	return buf.Bytes(), nil
}

// writeCanonical writes v (as json.Unmarshal decodes into any) in
// canonical form.
func writeCanonical(buf *bytes.Buffer, v any) {
	switch t := v.(type) {
	case map[string]any:
		type member struct {
			name string
			key  []uint16
		}
		members := make([]member, 0, len(t))
		for name := range t {
			members = append(members, member{name: name, key: utf16.Encode([]rune(name))})
		}
		slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key, b.key) })
		buf.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonicalString(buf, m.name)
			buf.WriteByte(':')
			writeCanonical(buf, t[m.name])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeCanonicalString(buf, t)
	case float64:
		buf.WriteString(canonicalNumber(t))
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case nil:
		buf.WriteString("null")
	}
}

// writeCanonicalString writes s as JCS does (ECMAScript's JSON.stringify):
// runs of characters that need no escape are copied whole.
func writeCanonicalString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		start = i + 1
		switch c {
		case '"', '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case '\b':
			buf.WriteString(`\b`)
		case '\t':
			buf.WriteString(`\t`)
		case '\n':
			buf.WriteString(`\n`)
		case '\f':
			buf.WriteString(`\f`)
		case '\r':
			buf.WriteString(`\r`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[c>>4])
			buf.WriteByte(hex[c&15])
		}
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// canonicalNumber writes f as ECMAScript writes a double: the shortest
// digits that read back as f, plain from 1e-6 up to (not including) 1e21,
// else with an exponent ("1e+21", "5e-324"); -0 is "0".
func canonicalNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// shortest round-trip digits d1d2...dk and exponent: f = 0.d1..dk x 10^n
	e := strconv.FormatFloat(f, 'e', -1, 64) // "d.ddde±xx"
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	m := digits[:1]
	if k > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	return sign + m + "e" + es + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
