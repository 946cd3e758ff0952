package httpapi

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/labstack/echo/v4"
)

// answerEncoder is an encoding/json Encoder (HTML escaping off) bound to its
// own buffer. Pooled, so an answer costs neither a fresh encoder nor a
// buffer grown through five copies to the 1-2 KB of a payment; c.Blob writes
// the bytes before writeJSON returns, so the buffer is free again then.
type answerEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
	// payment is the payment answer being encoded and parts what it points
	// to (writePayment).
	payment paymentDTO
	parts   paymentParts
}

var answerEncoders = sync.Pool{New: func() any {
	e := &answerEncoder{}
	e.enc = newJSONEncoder(&e.buf)
	return e
}}

// maxPooledBuffer keeps a rare huge answer (a long list) from staying in the pool.
const maxPooledBuffer = 64 << 10

func getAnswerEncoder() *answerEncoder { return answerEncoders.Get().(*answerEncoder) }

func putAnswerEncoder(e *answerEncoder) {
	if e.buf.Cap() > maxPooledBuffer {
		return
	}
	e.buf.Reset()
	e.payment = paymentDTO{}
	e.parts.reset()
	answerEncoders.Put(e)
}

// encode returns v as encoding/json encodes it, without the newline Encode
// ends with; the bytes are valid until e goes back to the pool.
func (e *answerEncoder) encode(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	b := e.buf.Bytes()
	return b[:len(b)-1], nil
}

// write answers v with status through c: its JSON as encode makes it, with
// Content-Type application/json unless the handler set one.
func (e *answerEncoder) write(c echo.Context, status int, v any) error {
	if h := c.Response().Header(); h.Get(echo.HeaderContentType) == "" {
		h[echo.HeaderContentType] = jsonContentType // what Blob would set, without a new slice
	}
	b, err := e.encode(v)
	if err != nil {
		return err
	}
	return c.Blob(status, echo.MIMEApplicationJSON, b)
}
