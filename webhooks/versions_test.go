package webhooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/webhooks"
)

// bodyDiff lists how old differs from cur, each as "path kind": a member
// of cur that old leaves out is "absent" (not descended into), a leaf with
// another value is "value", a member only old has is "added". Array
// indices are written [].
func bodyDiff(path string, cur, old any, out map[string]bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch c := cur.(type) {
	case map[string]any:
		o, ok := old.(map[string]any)
		if !ok {
			out[path+" value"] = true
			return
		}
		for k, cv := range c {
			ov, ok := o[k]
			if !ok {
				out[join(k)+" absent"] = true
				continue
			}
			bodyDiff(join(k), cv, ov, out)
		}
		for k := range o {
			if _, ok := c[k]; !ok {
				out[join(k)+" added"] = true
			}
		}
	case []any:
		o, ok := old.([]any)
		if !ok || len(o) != len(c) {
			out[path+" value"] = true
			return
		}
		for i := range c {
			bodyDiff(path+"[]", c[i], o[i], out)
		}
	default:
		if !reflect.DeepEqual(cur, old) {
			out[path+" value"] = true
		}
	}
}

// hasPath reports whether body has a member at path ([] matches any index).
func hasPath(body any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	k, arr := strings.CutSuffix(path[0], "[]")
	m, ok := body.(map[string]any)
	if !ok {
		return false
	}
	v, ok := m[k]
	if !ok {
		return false
	}
	if !arr {
		return hasPath(v, path[1:])
	}
	for _, e := range v.([]any) {
		if hasPath(e, path[1:]) {
			return true
		}
	}
	return false
}

func readGolden(t *testing.T, v simulator.APIVersion, name string) any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(goldenDir(v), name+".json"))
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

// Each older version's golden differs from the 2.4 one by exactly that
// version's differences (webhooks.DifferencesOf) that the body can have,
// and every difference shows in some golden.
func TestVersionGoldensDiffer(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range simulator.APIVersions[:len(simulator.APIVersions)-1] {
		for _, name := range goldenNames {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				cur, old := readGolden(t, simulator.CurrentAPIVersion, name), readGolden(t, v, name)
				got := map[string]bool{}
				bodyDiff("", cur, old, got)
				want := map[string]bool{}
				for _, d := range webhooks.DifferencesOf(v) {
					if hasPath(cur, strings.Split(d.Path, ".")) {
						want[d.Path+" "+d.Kind] = true
						seen[string(v)+" "+d.Path] = true
					}
				}
				assert.Equal(t, sorted(want), sorted(got))
				assert.Equal(t, string(v), old.(map[string]any)["version"])
			})
		}
	}
	for _, v := range simulator.APIVersions {
		for _, d := range webhooks.DifferencesOf(v) {
			assert.True(t, seen[string(v)+" "+d.Path], "%s: difference %s shows in no golden", v, d.Path)
		}
	}
	assert.Empty(t, webhooks.DifferencesOf(simulator.V24))
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The docs' table names every difference and every older version.
func TestDifferencesMarkdown(t *testing.T) {
	md := webhooks.DifferencesMarkdown()
	for _, d := range webhooks.Differences {
		assert.Contains(t, md, "`"+d.Path+"`")
	}
	assert.Contains(t, md, "| Member | Kind | 2.1 | 2.2 | 2.3 | Why |")
	t.Log("\n" + md)
}

// An event that names no version (made before events kept one) renders as
// 2.4; one naming a version not served is an error, not a guess.
func TestRenderVersionOfEvent(t *testing.T) {
	p := &simulator.Payment{ID: "p1", TenantID: "t1", Status: simulator.StatusAuthorized, CurrencyCode: "EUR", Amount: 1}
	ev := &simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, CreatedAt: epoch, Payment: p}
	body, err := webhooks.Renderer{}.Body(ev)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"version":"2.4"`)
	ev.Version = "2.9"
	_, err = webhooks.Renderer{}.Body(ev)
	assert.Error(t, err)
}
