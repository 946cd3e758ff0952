package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/paysandbox/paysandbox/simulator"
)

// The primitives of the record encoders (record_encode.go) and the event
// index's payment-id match: strings, object keys, integers and booleans
// appended to a byte slice, and the domain members records share.
//
// Contract: every function writes exactly the bytes encoding/json's Encoder
// with SetEscapeHTML(false) writes for the same Go value (a field helper: for
// that struct field, with or without omitempty as its name says);
// json_append_test.go, TestRecordEncodingMatchesEncodingJSON and
// FuzzRecordEncoding compare them with encoding/json.

const hexDigits = "0123456789abcdef"

// plainByte marks the bytes a string carries as they are: ASCII from space
// up, but `"` and `\`.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// jsonString is encoding/json's string encoding without HTML escaping:
// `"` and `\` escaped, \b \f \n \r \t by name, other bytes below 0x20 as
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func jsonString(dst []byte, s string) []byte {
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

// jsonKey starts a member: a comma unless it is the object's first, then the
// quoted key (a Go literal of plain ASCII, so written as is) and a colon.
// Every value ends with a byte other than '{', so the last byte tells whether
// the object already has a member; dst must end with the object's '{' or a
// value.
func jsonKey(dst []byte, key string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// stringField is a string field.
func stringField(dst []byte, key, v string) []byte {
	return jsonString(jsonKey(dst, key), v)
}

// omitString is a string field with omitempty.
func omitString(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	return stringField(dst, key, v)
}

// omitStringPtr is a *string field with omitempty (nil left out; "" written).
func omitStringPtr(dst []byte, key string, v *string) []byte {
	if v == nil {
		return dst
	}
	return stringField(dst, key, *v)
}

// intField is an int64 field.
func intField(dst []byte, key string, v int64) []byte {
	return strconv.AppendInt(jsonKey(dst, key), v, 10)
}

// omitInt is an int64 field with omitempty.
func omitInt(dst []byte, key string, v int64) []byte {
	if v == 0 {
		return dst
	}
	return intField(dst, key, v)
}

// omitIntPtr is a *int64 field with omitempty.
func omitIntPtr(dst []byte, key string, v *int64) []byte {
	if v == nil {
		return dst
	}
	return intField(dst, key, *v)
}

// boolField is a bool field.
func boolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(jsonKey(dst, key), v)
}

// omitBool is a bool field with omitempty.
func omitBool(dst []byte, key string, v bool) []byte {
	if !v {
		return dst
	}
	return boolField(dst, key, v)
}

// omitBoolPtr is a *bool field with omitempty.
func omitBoolPtr(dst []byte, key string, v *bool) []byte {
	if v == nil {
		return dst
	}
	return boolField(dst, key, *v)
}

// anyEncoder is a reusable encoding/json Encoder over its own buffer, HTML
// escaping off.
type anyEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var anyEncoders = sync.Pool{New: func() any {
	e := &anyEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// maxPooledAny bounds the buffers put back into the pool.
const maxPooledAny = 64 << 10

// appendAny appends a free-form value (metadata, options) as encoding/json
// encodes it with HTML escaping off: sorted map keys, its number and
// marshaler checks, and its errors (dst is returned unchanged with the
// error).
func appendAny(dst []byte, v any) ([]byte, error) {
	e := anyEncoders.Get().(*anyEncoder)
	defer func() {
		if e.buf.Cap() <= maxPooledAny {
			anyEncoders.Put(e)
		}
	}()
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return dst, err
	}
	b := e.buf.Bytes()
	return append(dst, b[:len(b)-1]...), nil // Encode ends with a newline
}

// appendStatusReason appends r as encoding/json encodes it.
func appendStatusReason(dst []byte, r *simulator.StatusReason) []byte {
	dst = append(dst, '{')
	dst = stringField(dst, "type", r.Type)
	dst = omitString(dst, "declineType", r.DeclineType)
	dst = omitString(dst, "code", r.Code)
	dst = omitString(dst, "message", r.Message)
	return append(dst, '}')
}

// appendRiskData appends r as encoding/json encodes it.
func appendRiskData(dst []byte, r *simulator.RiskData) []byte {
	dst = append(dst, '{')
	if f := r.FraudChecks; f != nil {
		dst = append(jsonKey(dst, "fraudChecks"), '{')
		dst = stringField(dst, "source", f.Source)
		dst = omitString(dst, "preAuthorizationResult", f.PreAuthorizationResult)
		dst = omitString(dst, "postAuthorizationResult", f.PostAuthorizationResult)
		dst = append(dst, '}')
	}
	if c := r.CVVCheck; c != nil {
		dst = append(jsonKey(dst, "cvvCheck"), '{')
		dst = stringField(dst, "source", c.Source)
		dst = stringField(dst, "result", c.Result)
		dst = append(dst, '}')
	}
	if a := r.AVSCheck; a != nil {
		dst = append(jsonKey(dst, "avsCheck"), '{')
		dst = stringField(dst, "source", a.Source)
		dst = append(jsonKey(dst, "result"), '{')
		dst = stringField(dst, "streetAddress", a.Result.StreetAddress)
		dst = stringField(dst, "postalCode", a.Result.PostalCode)
		dst = append(dst, '}', '}')
	}
	return append(dst, '}')
}

// appendThreeDSecure appends t as encoding/json encodes it.
func appendThreeDSecure(dst []byte, t *simulator.ThreeDSecure) []byte {
	dst = append(dst, '{')
	dst = stringField(dst, "responseCode", t.ResponseCode)
	dst = omitString(dst, "reasonCode", t.ReasonCode)
	dst = omitString(dst, "reasonText", t.ReasonText)
	dst = omitString(dst, "protocolVersion", t.ProtocolVersion)
	dst = boolField(dst, "challengeIssued", t.ChallengeIssued)
	return append(dst, '}')
}
