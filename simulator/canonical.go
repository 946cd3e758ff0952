package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
// (1e400) is an error. Member names must be unique (I-JSON, RFC 7493); a
// name that appears twice is an error. Invalid UTF-8 is read as U+FFFD, as
// encoding/json reads it.
func CanonicalJSON(doc []byte) ([]byte, error) { return canonicalJSON(doc, "") }

// canonicalJSON is CanonicalJSON leaving out the top-level member named
// skip ("": none) of a document that is an object.
func canonicalJSON(doc []byte, skip string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var buf bytes.Buffer
	if skip != "" {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, errors.New("the document is not a JSON object")
		}
		if err := canonicalObject(dec, &buf, skip); err != nil {
			return nil, err
		}
	} else if err := canonicalValue(dec, &buf); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON value")
	}
	return buf.Bytes(), nil
}

// canonicalValue writes the next value of dec in canonical form. It reads
// tokens, so that a member name that appears twice is seen.
func canonicalValue(dec *json.Decoder, buf *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := canonicalValue(dec, buf); err != nil {
					return err
				}
			}
			_, err := dec.Token() // ]
			buf.WriteByte(']')
			return err
		}
		return canonicalObject(dec, buf, "")
	case string:
		writeCanonicalString(buf, t)
	case json.Number:
		s, err := canonicalNumber(string(t))
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case nil:
		buf.WriteString("null")
	}
	return nil
}

// canonicalObject writes an object whose '{' was read: its members but
// skip ("": none) sorted by name (UTF-16 code units), each value canonical.
func canonicalObject(dec *json.Decoder, buf *bytes.Buffer, skip string) error {
	type member struct {
		name  string
		key   []uint16
		value []byte
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // the decoder allows only a string here
		if seen[name] {
			return fmt.Errorf("member %q appears twice in one object", name)
		}
		seen[name] = true
		var v bytes.Buffer
		if err := canonicalValue(dec, &v); err != nil {
			return err
		}
		if skip != "" && name == skip {
			continue
		}
		members = append(members, member{name: name, key: utf16.Encode([]rune(name)), value: v.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key, b.key) })
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeCanonicalString(buf, m.name)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return nil
}

// writeCanonicalString writes s as JCS does (ECMAScript's JSON.stringify).
func writeCanonicalString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case c == '\b':
			buf.WriteString(`\b`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\f':
			buf.WriteString(`\f`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[c>>4])
			buf.WriteByte(hex[c&15])
		default:
			buf.WriteByte(c)
		}
	}
	buf.WriteByte('"')
}

// canonicalNumber writes the JSON number lit as ECMAScript writes the
// double it denotes: the shortest digits that read back as that double,
// plain from 1e-6 up to (not including) 1e21, else with an exponent
// ("1e+21", "5e-324"); -0 is "0".
func canonicalNumber(lit string) (string, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("the number %s is outside the range of a double", lit)
	}
	if f == 0 {
		return "0", nil
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
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		m := digits[:1]
		if k > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		out = m + "e" + es + strconv.Itoa(abs(n-1))
	}
	return sign + out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
