package app

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedWriter is an output that can be held (a full pipe).
type lockedWriter struct {
	mu   sync.Mutex
	hold sync.Mutex
	buf  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.hold.Lock()
	defer w.hold.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.buf.String() }

// TestLogBuffer: every line reaches the output, each writer's lines in order
// and whole; a held output never blocks a writer (lines beyond the bound are
// dropped and counted); lines after Close are written directly.
func TestLogBuffer(t *testing.T) {
	t.Run("concurrent writers, flushed at close", func(t *testing.T) {
		out := &lockedWriter{}
		l := newLogBuffer(out)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 500 {
					_, _ = fmt.Fprintf(l, "w%d line %04d\n", w, i)
				}
			}()
		}
		wg.Wait()
		require.NoError(t, l.Close())
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		require.Len(t, lines, 2000)
		next := map[string]int{}
		for _, ln := range lines {
			var w string
			var i int
			_, err := fmt.Sscanf(ln, "%s line %d", &w, &i)
			require.NoError(t, err, ln)
			assert.Equal(t, next[w], i, "order of %s", w)
			next[w] = i + 1
		}
		_, _ = l.Write([]byte("after close\n"))
		assert.True(t, strings.HasSuffix(out.String(), "after close\n"))
	})
	t.Run("a held output drops and counts, never blocks", func(t *testing.T) {
		out := &lockedWriter{}
		out.hold.Lock()
		l := newLogBuffer(out)
		line := strings.Repeat("x", 1023) + "\n"
		n := 2 * logBufferMax / len(line)
		for range n { // would block forever if Write waited for the output
			_, _ = l.Write([]byte(line))
		}
		out.hold.Unlock()
		require.NoError(t, l.Close())
		got := out.String()
		assert.Contains(t, got, "lines dropped")
		assert.Less(t, strings.Count(got, line), n)
		assert.Positive(t, strings.Count(got, line))
	})
}
