package jsonappend

import (
	"bytes"
	"encoding/json"
	"sync"
)

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

// Any appends a free-form value (metadata, options) as encoding/json encodes
// it with HTML escaping off: sorted map keys, its number and marshaler
// checks, and its errors (dst is returned unchanged with the error).
func Any(dst []byte, v any) ([]byte, error) {
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
