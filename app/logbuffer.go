package app

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// logBuffer makes the log non-blocking for requests: Write appends the line
// to a memory buffer and returns; a goroutine of its own writes the buffer to
// the real output every logFlushEvery, or sooner when logFlushAt bytes wait.
// When the output cannot keep up and logBufferMax bytes wait, further lines
// are dropped and counted, and the count is logged once the output drains (a
// request never waits for a terminal or a pipe). Close writes what is left.
type logBuffer struct {
	out io.Writer

	mu      sync.Mutex
	buf     []byte
	spare   []byte
	dropped int
	closed  bool
	once    sync.Once

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

const (
	logFlushEvery = 50 * time.Millisecond
	logFlushAt    = 32 << 10
	logBufferMax  = 4 << 20
)

func newLogBuffer(out io.Writer) *logBuffer {
	l := &logBuffer{out: out, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

// Write queues one log line (slog writes each record in one call).
func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		defer l.mu.Unlock()
		return l.out.Write(p)
	}
	if len(l.buf)+len(p) > logBufferMax {
		l.dropped++
	} else {
		l.buf = append(l.buf, p...)
	}
	full := len(l.buf) >= logFlushAt
	l.mu.Unlock()
	if full {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

func (l *logBuffer) run() {
	defer close(l.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-l.kick:
		case <-l.stop:
			l.flush()
			return
		}
		l.flush()
	}
}

// flush writes what waits, outside the lock (Write goes on meanwhile).
func (l *logBuffer) flush() {
	l.mu.Lock()
	b, dropped := l.buf, l.dropped
	l.buf, l.spare, l.dropped = l.spare[:0], nil, 0
	l.mu.Unlock()
	if len(b) > 0 {
		_, _ = l.out.Write(b)
	}
	if dropped > 0 {
		fmt.Fprintf(l.out, "level=WARN msg=\"log output too slow: %d lines dropped\"\n", dropped)
	}
	l.mu.Lock()
	if l.spare == nil && cap(b) <= logBufferMax {
		l.spare = b[:0]
	}
	l.mu.Unlock()
}

// Close writes every queued line and stops the writer; later lines are
// written directly.
func (l *logBuffer) Close() error {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		defer l.mu.Unlock()
		l.closed = true
		if len(l.buf) > 0 {
			_, _ = l.out.Write(l.buf)
			l.buf = nil
		}
	})
	return nil
}
