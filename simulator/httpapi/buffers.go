package httpapi

import (
	"bytes"
	"sync"
)

// bufferPool recycles the buffers responses are encoded into: a payment
// answer is 1-2 KB, and a fresh buffer grows through five copies to get
// there. c.Blob writes the bytes before it returns, so the buffer is free
// again when writeJSON returns.
var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps a rare huge answer (a long list) from staying in the pool.
const maxPooledBuffer = 64 << 10

func getBuffer() *bytes.Buffer { return bufferPool.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	bufferPool.Put(b)
}
