package httpapi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/paysandbox/paysandbox/simulator"
)

// One-pass request decoding. The full path (decodeWith) parses a body into a
// generic tree, validates the tree against the request schema (listing every
// broken rule), re-encodes it and decodes it again into the request type.
// The fast path here reads the bytes once, straight into the request type,
// checking the same schema's rules as it goes. It only ever accepts: on
// anything it does not take (a broken rule, an unknown or repeated key, a
// key with an escape, a number that is not a plain integer where one is
// wanted, nesting past MaxDepth, trailing data, any JSON oddity) it declines
// and the full path decides, so errors and their bytes are the full path's.
// When it accepts, the value is the one the full path would have produced
// (FuzzFastDecode and TestFastDecodeDifferential check both).

// fastRequest is a request type with a one-pass decoder for one schema.
type fastRequest interface {
	// fastSchema is the schema decodeFast checks; the fast path is used only
	// when the handler validates against that same schema.
	fastSchema() *schema
	// decodeFast reads the top-level object at d into the (zero) receiver
	// and reports where it ended and whether every rule of the schema, and
	// of the handler's extra rules, holds. On false the receiver may be
	// partly written. (d is a value so that it stays on the stack.) An empty
	// optional body is not passed here: the zero value stands for {}, so it
	// must keep the extra rules too.
	decodeFast(d reader) (end int, ok bool)
}

// decodeFast is the fast path of decodeWith for body b: true when dst (nil
// for a body that must be empty) now holds the decoded body and every rule
// of s holds. dst must be zero; on false it may be partly written.
func decodeFast(b []byte, s *schema, dst any, optional bool) bool {
	r, isFast := dst.(fastRequest)
	switch {
	case isFast && r.fastSchema() == s:
	case dst == nil && s == emptyRequest:
	default:
		return false
	}
	d := reader{b: b}
	d.ws()
	if d.i == len(b) { // JSON whitespace only: {} when optional
		return optional && s.requiredMet(0, 0)
	}
	if isFast {
		end, ok := r.decodeFast(d)
		if !ok {
			return false
		}
		d.i = end
	} else if !d.object(s, nil) {
		return false
	}
	d.ws()
	return d.i == len(b)
}

// reader is a strict JSON reader over a body. Every method reports false on
// anything it does not accept; the caller then gives up on the fast path.
type reader struct {
	b     []byte
	i     int
	depth int // containers open (the top-level object is 1)
}

// ws skips JSON whitespace (only these four; bytes.TrimSpace takes more, and
// the full path decides on those).
func (d *reader) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next consumes c after whitespace.
func (d *reader) next(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// literal consumes lit (null, true, false) at the cursor.
func (d *reader) literal(lit string) bool {
	if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// enter opens a container with byte open, within MaxDepth.
func (d *reader) enter(open byte) bool {
	if d.i >= len(d.b) || d.b[d.i] != open || d.depth >= MaxDepth {
		return false
	}
	d.i++
	d.depth++
	return true
}

// object reads a closed object of schema s, calling field for each key with
// a non-null value, with the key's prop. A null value is skipped: the field
// stays zero, as after the full path (null is absent there). Unknown keys,
// repeated keys, keys with escapes and missing required fields decline.
func (d *reader) object(s *schema, field func(name string, ps *schema) bool) bool {
	if s.typ != "object" || len(s.props) > 64 || !d.enter('{') {
		return false
	}
	var seen, nulls uint64
	if d.next('}') {
		d.depth--
		return s.requiredMet(seen, nulls)
	}
	for {
		d.ws()
		key, ok := d.rawKey()
		if !ok || !d.next(':') {
			return false
		}
		idx := -1
		for j := range s.props {
			if s.props[j].name == string(key) {
				idx = j
				break
			}
		}
		if idx < 0 || seen&(1<<idx) != 0 {
			return false
		}
		seen |= 1 << idx
		d.ws()
		switch {
		case d.literal("null"):
			nulls |= 1 << idx
		case field == nil || !field(s.props[idx].name, s.props[idx].s):
			return false
		}
		if d.next(',') {
			continue
		}
		if d.next('}') {
			d.depth--
			return s.requiredMet(seen, nulls)
		}
		return false
	}
}

// requiredMet reports whether every required prop of s was given a value
// (seen and not null).
func (s *schema) requiredMet(seen, nulls uint64) bool {
	for j, p := range s.props {
		if p.req && (seen&(1<<j) == 0 || nulls&(1<<j) != 0) {
			return false
		}
	}
	return true
}

// array reads an array, calling elem at each element.
func (d *reader) array(elem func() bool) bool {
	if !d.enter('[') {
		return false
	}
	if d.next(']') {
		d.depth--
		return true
	}
	for {
		d.ws()
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		if d.next(']') {
			d.depth--
			return true
		}
		return false
	}
}

// rawKey reads an object key that is plain: no escape, no control byte. Its
// bytes are what the full path's key would be when they match a prop name.
func (d *reader) rawKey() ([]byte, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	for j := d.i + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			k := d.b[d.i+1 : j]
			d.i = j + 1
			return k, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string as encoding/json does: a plain one is copied, one with
// escapes or invalid UTF-8 is unquoted by encoding/json itself (same escapes,
// same U+FFFD replacement as the full path).
func (d *reader) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start, esc, high := d.i+1, false, false
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			seg := d.b[start:j]
			d.i = j + 1
			if !esc && (!high || utf8.Valid(seg)) {
				return string(seg), true
			}
			var s string
			if json.Unmarshal(d.b[start-1:j+1], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			esc = true
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return "", false
}

// number reads a number in JSON's grammar; integer reports whether it has
// neither fraction nor exponent.
func (d *reader) number() (raw []byte, integer bool) {
	b, j := d.b, d.i
	digits := func() bool {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case !digits():
		return nil, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return nil, false
		}
		integer = false
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false
		}
		integer = false
	}
	raw = b[d.i:j]
	d.i = j
	return raw, integer
}

// The typed readers: each checks that its prop's schema has the type it
// reads (a schema edit the reader does not know makes the fast path decline,
// never accept wrongly), then the schema's rules on the value.

// strField reads a string of schema s into dst.
func (d *reader) strField(s *schema, dst *string) bool {
	if s.typ != "string" {
		return false
	}
	v, ok := d.str()
	if !ok || !s.stringOK(v) {
		return false
	}
	*dst = v
	return true
}

// intField reads an integer of schema s into dst: a plain integer literal
// within int64 (what strconv.ParseInt takes on the full path) and s.min.
func (d *reader) intField(s *schema, dst **int64) bool {
	if s.typ != "integer" {
		return false
	}
	raw, integer := d.number()
	if !integer {
		return false
	}
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	if len(raw) > 19 { // 10^19 is past int64 either way (no leading zeros)
		return false
	}
	var u uint64
	for _, c := range raw {
		u = u*10 + uint64(c-'0')
	}
	var v int64
	switch {
	case neg && u <= 1<<63:
		v = int64(-u) // wraps to MinInt64 at 1<<63, as ParseInt gives
	case !neg && u <= math.MaxInt64:
		v = int64(u)
	default:
		return false
	}
	if s.min != nil && v < *s.min {
		return false
	}
	*dst = &v
	return true
}

// floatField reads a number of schema s into dst (strconv.ParseFloat, as
// both the full path's check and its decode do).
func (d *reader) floatField(s *schema, dst **float64) bool {
	if s.typ != "number" {
		return false
	}
	raw, _ := d.number()
	if raw == nil {
		return false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || (s.min != nil && f < float64(*s.min)) {
		return false
	}
	*dst = &f
	return true
}

// boolField reads a boolean into dst.
func (d *reader) boolField(s *schema, dst **bool) bool {
	if s.typ != "boolean" {
		return false
	}
	var v bool
	switch {
	case d.literal("true"):
		v = true
	case d.literal("false"):
	default:
		return false
	}
	*dst = &v
	return true
}

// plainBool reads a boolean into a non-pointer field.
func (d *reader) plainBool(s *schema, dst *bool) bool {
	var p *bool
	if !d.boolField(s, &p) {
		return false
	}
	*dst = *p
	return true
}

// strList reads an array of strings of schema s (no null items) into dst;
// [] gives an empty, non-nil slice, as encoding/json does.
func (d *reader) strList(s *schema, dst *[]string) bool {
	if s.typ != "array" || s.items.typ != "string" {
		return false
	}
	out := []string{}
	ok := d.array(func() bool {
		var v string
		if !d.strField(s.items, &v) {
			return false
		}
		out = append(out, v)
		return true
	})
	if !ok {
		return false
	}
	*dst = out
	return true
}

// freeMap reads a free-form object of schema s into dst: the values
// encoding/json gives with UseNumber (json.Number, string, bool, nil,
// []any, map[string]any; a repeated key keeps its last value), within the
// encoded-size bound. Encoding never takes more than six bytes per input
// byte (\u00XX for one byte), so a small object skips the encoding.
func (d *reader) freeMap(s *schema, dst *map[string]any) bool {
	if s.typ != "map" || d.i >= len(d.b) || d.b[d.i] != '{' {
		return false
	}
	start := d.i
	v, ok := d.value()
	if !ok {
		return false
	}
	m := v.(map[string]any)
	limit := s.maxBytes
	if limit == 0 {
		limit = simulator.MaxMetadataBytes
	}
	if 6*(d.i-start) > limit {
		if n := simulator.EncodedSize(m); n < 0 || n > limit {
			return false
		}
	}
	*dst = m
	return true
}

// value reads any JSON value as encoding/json decodes it into an
// interface with UseNumber.
func (d *reader) value() (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		m := map[string]any{}
		if !d.enter('{') {
			return nil, false
		}
		if d.next('}') {
			d.depth--
			return m, true
		}
		for {
			d.ws()
			k, ok := d.str()
			if !ok || !d.next(':') {
				return nil, false
			}
			d.ws()
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			m[k] = v
			if d.next(',') {
				continue
			}
			if d.next('}') {
				d.depth--
				return m, true
			}
			return nil, false
		}
	case c == '[':
		a := []any{}
		ok := d.array(func() bool {
			v, ok := d.value()
			a = append(a, v)
			return ok
		})
		return a, ok
	case c == '"':
		return d.str()
	case d.literal("null"):
		return nil, true
	case d.literal("true"):
		return true, true
	case d.literal("false"):
		return false, true
	}
	raw, _ := d.number()
	if raw == nil {
		return nil, false
	}
	return json.Number(raw), true
}

// stringOK reports whether str keeps the string rules of s (lengths, enum,
// format): exactly when validate adds no error for it.
func (s *schema) stringOK(str string) bool {
	n := utf8.RuneCountInString(str)
	if (s.minLen > 0 && n < s.minLen) || n > s.textMax() {
		return false
	}
	if s.enumSet != nil {
		if _, ok := s.enumSet[str]; !ok {
			return false
		}
	} else if len(s.enum) > 0 && !slices.Contains(s.enum, str) {
		return false
	}
	return s.formatOK(str)
}
