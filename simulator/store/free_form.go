package store

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// freeMap is a free-form member (a payment's or session's metadata, a
// session's payment-method options): what the API decoded from JSON, read
// back exactly as written. Its values are strings, bools, nil, json.Number
// (the API decodes numbers as their text), maps of string keys and lists
// of them; a json.Number is a MessagePack extension of type extJSONNumber
// holding its text, so "1.50" reads back "1.50". Numbers of other Go types
// are stored as MessagePack numbers and read back as int64, uint64 or
// float64.
//
// The generated code (records_gen.go) calls its methods as those of any
// msgp type; records.go's `omitzero` leaves an empty one out (IsZero).
type freeMap map[string]any

// extJSONNumber is the MessagePack extension type of a json.Number (0 to
// 127 are the application's).
const extJSONNumber = 1

// IsZero reports whether m has no member (omitzero).
func (m freeMap) IsZero() bool { return len(m) == 0 }

// MarshalMsg appends m to b.
func (m freeMap) MarshalMsg(b []byte) ([]byte, error) {
	return appendFree(b, map[string]any(m))
}

// UnmarshalMsg reads m from b.
func (m *freeMap) UnmarshalMsg(b []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		*m = nil
		return b[1:], nil
	}
	v, o, err := readFreeMap(b)
	*m = v
	return o, err
}

// Msgsize is an upper bound of m's encoded size.
func (m freeMap) Msgsize() int { return freeSize(map[string]any(m)) }

func appendFree(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return msgp.AppendNil(b), nil
	case string:
		return msgp.AppendString(b, x), nil
	case bool:
		return msgp.AppendBool(b, x), nil
	case json.Number:
		return msgp.AppendExtension(b, &numberExt{string(x)})
	case map[string]any:
		if x == nil {
			return msgp.AppendNil(b), nil
		}
		b = msgp.AppendMapHeader(b, uint32(len(x)))
		for k, e := range x {
			b = msgp.AppendString(b, k)
			var err error
			if b, err = appendFree(b, e); err != nil {
				return b, err
			}
		}
		return b, nil
	case []any:
		if x == nil {
			return msgp.AppendNil(b), nil
		}
		b = msgp.AppendArrayHeader(b, uint32(len(x)))
		for _, e := range x {
			var err error
			if b, err = appendFree(b, e); err != nil {
				return b, err
			}
		}
		return b, nil
	case float64:
		return msgp.AppendFloat64(b, x), nil
	case int:
		return msgp.AppendInt(b, x), nil
	case int64:
		return msgp.AppendInt64(b, x), nil
	case uint64:
		return msgp.AppendUint64(b, x), nil
	}
	return b, fmt.Errorf("store: a free-form member holds a %T", v)
}

func freeSize(v any) int {
	switch x := v.(type) {
	case string:
		return msgp.StringPrefixSize + len(x)
	case json.Number:
		return msgp.ExtensionPrefixSize + len(x)
	case map[string]any:
		n := msgp.MapHeaderSize
		for k, e := range x {
			n += msgp.StringPrefixSize + len(k) + freeSize(e)
		}
		return n
	case []any:
		n := msgp.ArrayHeaderSize
		for _, e := range x {
			n += freeSize(e)
		}
		return n
	}
	return 9 // nil, bool, a number
}

func readFreeMap(b []byte) (map[string]any, []byte, error) {
	n, b, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return nil, b, err
	}
	if int(n) > len(b)/2 { // a key and a value take two bytes at least
		return nil, b, errFreeLength
	}
	m := make(map[string]any, n)
	for range n {
		var k string
		if k, b, err = msgp.ReadStringBytes(b); err != nil {
			return nil, b, err
		}
		if m[k], b, err = readFree(b); err != nil {
			return nil, b, err
		}
	}
	return m, b, nil
}

func readFree(b []byte) (any, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.NilType:
		return nil, b[1:], nil
	case msgp.StrType:
		return msgp.ReadStringBytes(b)
	case msgp.BoolType:
		return msgp.ReadBoolBytes(b)
	case msgp.MapType:
		return readFreeMap(b)
	case msgp.ArrayType:
		n, o, err := msgp.ReadArrayHeaderBytes(b)
		if err != nil {
			return nil, o, err
		}
		if int(n) > len(o) { // a member takes a byte at least
			return nil, o, errFreeLength
		}
		l := make([]any, n)
		for i := range l {
			if l[i], o, err = readFree(o); err != nil {
				return nil, o, err
			}
		}
		return l, o, nil
	case msgp.ExtensionType:
		var n numberExt
		o, err := msgp.ReadExtensionBytes(b, &n)
		return json.Number(n.s), o, err
	case msgp.IntType:
		return msgp.ReadInt64Bytes(b)
	case msgp.UintType:
		return msgp.ReadUint64Bytes(b)
	case msgp.Float64Type, msgp.Float32Type:
		return msgp.ReadFloat64Bytes(b)
	}
	return nil, b, fmt.Errorf("store: a free-form member holds MessagePack type %s", msgp.NextType(b))
}

// errFreeLength is a free-form list or map longer than the bytes left:
// damage, refused before it is allocated.
var errFreeLength = errors.New("store: a free-form member's length runs past its record")

// numberExt is a json.Number as a MessagePack extension: its text.
type numberExt struct{ s string }

func (n *numberExt) ExtensionType() int8 { return extJSONNumber }
func (n *numberExt) Len() int            { return len(n.s) }

func (n *numberExt) MarshalBinaryTo(b []byte) error {
	copy(b, n.s)
	return nil
}

func (n *numberExt) UnmarshalBinary(b []byte) error {
	n.s = string(b)
	return nil
}
