package httpapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/paysandbox/paysandbox/internal/suggest"
	"github.com/paysandbox/paysandbox/simulator"
)

// schema is a request schema: the rules one JSON value must keep. Validation
// walks the whole document and reports every broken rule with its JSONPath,
// not just the first; only then is the body decoded into its DTO.
type schema struct {
	typ    string // object, map (free-form object), array, string, integer, number, boolean
	props  []prop
	closed bool // unknown fields are an error
	items  *schema
	enum   []string
	minLen int
	maxLen int // 0: simulator.MaxText (every string is bounded)
	// maxBytes bounds a free-form object once encoded (0: MaxMetadataBytes).
	maxBytes int
	min      *int64
	format   string // uuid, email, date-time
	// minorUnits marks an amount: an integer in the currency's minor units,
	// whose type error says so.
	minorUnits bool
}

type prop struct {
	name string
	s    *schema
	req  bool
}

func obj(closed bool, props ...prop) *schema {
	return &schema{typ: "object", closed: closed, props: props}
}
func field(name string, s *schema) prop    { return prop{name: name, s: s} }
func required(name string, s *schema) prop { return prop{name: name, s: s, req: true} }
func str(minLen, maxLen int) *schema       { return &schema{typ: "string", minLen: minLen, maxLen: maxLen} }
func anyStr() *schema                      { return &schema{typ: "string"} }
func formatted(f string) *schema           { return &schema{typ: "string", format: f} }
func enum(vals ...string) *schema {
	return &schema{typ: "string", enum: vals}
}
func boolean() *schema           { return &schema{typ: "boolean"} }
func number() *schema            { return &schema{typ: "number"} }
func freeMap() *schema           { return &schema{typ: "map"} }
func arrayOf(s *schema) *schema  { return &schema{typ: "array", items: s} }
func integer(min *int64) *schema { return &schema{typ: "integer", min: min} }

// amountOf is an amount of at least min, in minor units.
func amountOf(min *int64) *schema { return &schema{typ: "integer", min: min, minorUnits: true} }

var zero = int64(0)

// nonNegative is an integer of 0 or more that is not an amount (a count).
func nonNegative() *schema { return integer(&zero) }

// amount is an amount of 0 or more, in minor units.
func amount() *schema { return amountOf(&zero) }

// minorUnitsHelp ends the type error of an amount that is a string or has
// a fraction: what the API wants instead.
const minorUnitsHelp = ": amounts are integers in minor units (1000 = 10.00)"

// hasProp reports whether name is one of the object's properties (a scan:
// a schema has a handful, and a map per validated object cost more).
func (s *schema) hasProp(name string) bool {
	for _, p := range s.props {
		if p.name == name {
			return true
		}
	}
	return false
}

// validate checks v against s at path and appends every broken rule to errs.
// A null is the same as an absent field (required fields must have a value).
func (s *schema) validate(v any, path string, errs *[]simulator.FieldError) {
	if v == nil {
		return
	}
	switch s.typ {
	case "object":
		s.validateObject(v, path, errs)
	case "map":
		s.validateMap(v, path, errs)
	case "array":
		s.validateArray(v, path, errs)
	case "string":
		s.validateString(v, path, errs)
	case "integer":
		s.validateInteger(v, path, errs)
	case "number":
		s.validateNumber(v, path, errs)
	case "boolean":
		if _, ok := v.(bool); !ok {
			addFieldError(errs, path, "Value must be a valid boolean")
		}
	}
}

// addFieldError appends the error of the value at path.
func addFieldError(errs *[]simulator.FieldError, path, format string, args ...any) {
	*errs = append(*errs, simulator.FieldError{Path: path, Description: fmt.Sprintf(format, args...)})
}

// validateObject checks an object: its required and present properties,
// then, when s is closed, every member it does not know (sorted).
func (s *schema) validateObject(v any, path string, errs *[]simulator.FieldError) {
	m, ok := v.(map[string]any)
	if !ok {
		addFieldError(errs, path, "Value must be an object")
		return
	}
	for _, p := range s.props {
		pv, present := m[p.name]
		if p.req && (!present || pv == nil) {
			*errs = append(*errs, simulator.FieldError{Path: path + "." + p.name, Description: "Field required"})
			continue
		}
		if present {
			p.s.validate(pv, path+"."+p.name, errs)
		}
	}
	if !s.closed {
		return
	}
	var extra []string
	for k := range m {
		if !s.hasProp(k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		*errs = append(*errs, simulator.FieldError{Path: path + "." + k, Description: "Extra fields not permitted" + s.didYouMean(k, m)})
	}
}

// validateMap checks a free-form object (metadata) against its encoded size.
func (s *schema) validateMap(v any, path string, errs *[]simulator.FieldError) {
	if _, ok := v.(map[string]any); !ok {
		addFieldError(errs, path, "Value must be an object")
		return
	}
	limit := s.maxBytes
	if limit == 0 {
		limit = simulator.MaxMetadataBytes
	}
	if n := simulator.EncodedSize(v); n < 0 || n > limit {
		addFieldError(errs, path, "Ensure this object is at most %d bytes once encoded as JSON (it is %d)", limit, n)
	}
}

// validateArray checks each item of a list (null items refused).
func (s *schema) validateArray(v any, path string, errs *[]simulator.FieldError) {
	a, ok := v.([]any)
	if !ok {
		addFieldError(errs, path, "Value must be a valid list")
		return
	}
	for i, item := range a {
		if item == nil {
			*errs = append(*errs, simulator.FieldError{Path: fmt.Sprintf("%s[%d]", path, i), Description: "Value must not be null"})
			continue
		}
		s.items.validate(item, fmt.Sprintf("%s[%d]", path, i), errs)
	}
}

// validateString checks a string's length in characters, its enum and its
// format.
func (s *schema) validateString(v any, path string, errs *[]simulator.FieldError) {
	str, ok := v.(string)
	if !ok {
		addFieldError(errs, path, "Value must be a valid string")
		return
	}
	n := utf8.RuneCountInString(str)
	maxLen := s.textMax()
	switch {
	case s.minLen > 0 && n < s.minLen:
		addFieldError(errs, path, "Ensure this value has at least %d characters", s.minLen)
	case n > maxLen:
		addFieldError(errs, path, "Ensure this value has at most %d characters", maxLen)
	}
	if len(s.enum) > 0 && !slices.Contains(s.enum, str) {
		if len(s.enum) <= 20 {
			addFieldError(errs, path, "Value must be one of: %s", strings.Join(s.enum, ", "))
		} else {
			addFieldError(errs, path, "Value is not an allowed value")
		}
	}
	if !s.formatOK(str) {
		addFieldError(errs, path, "%s", formatMessages[s.format])
	}
}

// validateInteger checks an int64 (amounts say they are minor units) and
// its minimum.
func (s *schema) validateInteger(v any, path string, errs *[]simulator.FieldError) {
	num, ok := v.(json.Number)
	help := ""
	if s.minorUnits {
		help = minorUnitsHelp
	}
	if !ok {
		addFieldError(errs, path, "Value must be a valid integer%s", help)
		return
	}
	i, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		if strings.ContainsAny(string(num), ".eE") {
			addFieldError(errs, path, "Value must be a valid integer%s", help)
		} else {
			addFieldError(errs, path, "Value must be a valid integer (int64)")
		}
		return
	}
	if s.min != nil && i < *s.min {
		addFieldError(errs, path, "Ensure this value is greater than or equal to %d", *s.min)
	}
}

// validateNumber checks a number and its minimum.
func (s *schema) validateNumber(v any, path string, errs *[]simulator.FieldError) {
	num, ok := v.(json.Number)
	if !ok {
		addFieldError(errs, path, "Value must be a valid number")
		return
	}
	f, err := num.Float64()
	if err != nil {
		addFieldError(errs, path, "Value must be a valid number")
		return
	}
	if s.min != nil && f < float64(*s.min) {
		addFieldError(errs, path, "Ensure this value is greater than or equal to %d", *s.min)
	}
}

// didYouMean is the suggestion ending the error of the unknown field k of
// the object m: the field of s within two edits of k (suggest.Nearest:
// case, "_" and "-" aside; ties alphabetical) that m does not already give.
func (s *schema) didYouMean(k string, m map[string]any) string {
	names := make([]string, 0, len(s.props))
	for _, p := range s.props {
		if _, given := m[p.name]; !given {
			names = append(names, p.name)
		}
	}
	if near := suggest.Nearest(k, names); near != "" {
		return "; did you mean `" + near + "`?"
	}
	return ""
}

// textMax is the longest string s takes (simulator.MaxText when it states none).
func (s *schema) textMax() int {
	if s.maxLen == 0 {
		return simulator.MaxText
	}
	return s.maxLen
}

// formatMessages are the errors of the string formats.
var formatMessages = map[string]string{
	"uuid":    "Value must be a valid uuid",
	"country": "Value must be a two-letter country code",
	"email":   "Value must be a valid email address",
}

// formatOK reports whether str has the format of s (any string when s
// states none).
func (s *schema) formatOK(str string) bool {
	switch s.format {
	case "uuid":
		_, err := uuid.Parse(str)
		return err == nil && len(str) == 36
	case "country":
		return len(str) == 2 && str[0] >= 'A' && str[0] <= 'Z' && str[1] >= 'A' && str[1] <= 'Z'
	case "email":
		at := strings.IndexByte(str, '@')
		return !(at < 1 || at == len(str)-1 || strings.ContainsAny(str, " \t\r\n") || !strings.Contains(str[at:], "."))
	}
	return true
}
