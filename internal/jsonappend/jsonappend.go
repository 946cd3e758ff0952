// Package jsonappend holds the primitives of the reflection-free encoder of
// the webhook bodies (webhooks/payload_encode.go): strings, object keys,
// integers, booleans and floats appended to a byte slice. The store keeps
// its own copy (simulator/store/json_append.go).
//
// Contract: every function writes exactly the bytes encoding/json's Encoder
// with SetEscapeHTML(false) writes for the same Go value (a field helper: for
// that struct field, with or without omitempty as its name says). The
// caller's differential tests and fuzz target (FuzzWebhookBody) compare them
// with encoding/json.
package jsonappend

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plainByte marks the bytes a string carries as they are: ASCII from space
// up, but `"` and `\`.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// String is encoding/json's string encoding without HTML escaping:
// `"` and `\` escaped, \b \f \n \r \t by name, other bytes below 0x20 as
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if plainByte[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Key starts a member: a comma unless it is the object's first, then the
// quoted key (a Go literal of plain ASCII, so written as is) and a colon.
// Every value ends with a byte other than '{', so the last byte tells whether
// the object already has a member; dst must end with the object's '{' or a
// value.
func Key(dst []byte, key string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// StringField is a string field.
func StringField(dst []byte, key, v string) []byte {
	return String(Key(dst, key), v)
}

// OmitString is a string field with omitempty.
func OmitString(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	return StringField(dst, key, v)
}

// OmitStringPtr is a *string field with omitempty (nil left out; "" written).
func OmitStringPtr(dst []byte, key string, v *string) []byte {
	if v == nil {
		return dst
	}
	return StringField(dst, key, *v)
}

// IntField is an int64 field.
func IntField(dst []byte, key string, v int64) []byte {
	return strconv.AppendInt(Key(dst, key), v, 10)
}

// OmitInt is an int64 field with omitempty.
func OmitInt(dst []byte, key string, v int64) []byte {
	if v == 0 {
		return dst
	}
	return IntField(dst, key, v)
}

// OmitIntPtr is a *int64 field with omitempty.
func OmitIntPtr(dst []byte, key string, v *int64) []byte {
	if v == nil {
		return dst
	}
	return IntField(dst, key, *v)
}

// BoolField is a bool field.
func BoolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(Key(dst, key), v)
}

// OmitBool is a bool field with omitempty.
func OmitBool(dst []byte, key string, v bool) []byte {
	if !v {
		return dst
	}
	return BoolField(dst, key, v)
}

// OmitBoolPtr is a *bool field with omitempty.
func OmitBoolPtr(dst []byte, key string, v *bool) []byte {
	if v == nil {
		return dst
	}
	return BoolField(dst, key, *v)
}

// Float is encoding/json's float64 encoding (ES6 number formatting); NaN and
// infinities are refused by encoding/json itself, with its error.
func Float(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f)
		return dst, err
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}
