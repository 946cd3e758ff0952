package scenarios_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paysandbox/paysandbox/scenarios"
)

// FuzzLoad feeds the loader arbitrary documents: it never panics, a refusal is
// always an *scenarios.Error with at least one line-numbered problem, and a
// document it accepts renders to YAML that loads again to the same rules.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/bad/*.yaml")
	seeds = append(seeds, "../scenarios.yaml")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("version: 1\nrules: []\n"))
	f.Add([]byte("rules:\n  - name: a\n    when: {amount: {min: 5, max: 1}}\n    authorize: {status: DECLINED}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		doc, err := scenarios.Load("fuzz.yaml", data, nil)
		if err != nil {
			var se *scenarios.Error
			if !errors.As(err, &se) || len(se.Problems) == 0 {
				t.Fatalf("refusal is not a line-numbered *scenarios.Error: %v", err)
			}
			return
		}
		out, err := doc.YAML()
		if err != nil {
			t.Fatalf("an accepted document does not render: %v", err)
		}
		again, err := scenarios.Load("rendered.yaml", out, nil)
		if err != nil {
			t.Fatalf("rendered document does not load again: %v\n%s", err, out)
		}
		out2, err := again.YAML()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("render is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
