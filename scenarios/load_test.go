package scenarios_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox"
	"github.com/paysandbox/paysandbox/scenarios"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestLoadErrorsGolden pins the loader's messages: every problem of a file,
// at its line, in line order.
func TestLoadErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			_, err = scenarios.Load(filepath.Base(f), data, nil)
			var le *scenarios.Error
			require.True(t, errors.As(err, &le), "want a *scenarios.Error, got %v", err)
			got := strings.Join(le.Lines(), "\n") + "\n"
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestShippedScenariosLoad loads the embedded scenarios.yaml and checks what
// docs/scenarios.md says of it.
func TestShippedScenariosLoad(t *testing.T) {
	doc, err := scenarios.Load("scenarios.yaml", paysandbox.DefaultScenarios, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(doc.Processors), 3)
	def := doc.Default()
	assert.False(t, def.Async, "the default processor captures synchronously")
	var async, noCode, withCode bool
	for _, p := range doc.Processors {
		async = async || (p.Async && p.SettleAfter > 0)
		noCode = noCode || !p.AuthorizationCode
		withCode = withCode || (!p.Async && p.AuthorizationCode)
	}
	assert.True(t, async && noCode && withCode, "processors: sync with authorizationCode, async with a delay, one without authorizationCode")
	for _, r := range doc.Rules {
		if a := r.When.Amount; a != nil && a.Min != nil {
			assert.GreaterOrEqual(t, *a.Min, int64(4000), "rule %s: no amount below 4000 is magic", r.Name)
		}
	}
	// What is rendered loads back to the same rendering.
	y, err := doc.YAML()
	require.NoError(t, err)
	again, err := scenarios.Load("rendered", y, nil)
	require.NoError(t, err, "%s", y)
	y2, err := again.YAML()
	require.NoError(t, err)
	assert.Equal(t, string(y), string(y2))
}

// TestLoadOverBase: a tenant document without processors takes the server's.
func TestLoadOverBase(t *testing.T) {
	base, err := scenarios.Load("base", paysandbox.DefaultScenarios, nil)
	require.NoError(t, err)
	doc, err := scenarios.Load("put", []byte("rules:\n  - name: x\n    authorize: { processor: ADYEN, status: AUTHORIZED }\n"), base)
	require.NoError(t, err)
	assert.Equal(t, "STRIPE", doc.DefaultProcessor)
	assert.Len(t, doc.Processors, len(base.Processors))

	_, err = scenarios.Load("put", []byte("rules:\n  - name: x\n    authorize: { processor: PAYPAL, status: AUTHORIZED }\n"), base)
	require.EqualError(t, err, `put:3: processor "PAYPAL" is not one of the processors (STRIPE, ADYEN, BRAINTREE)`)

	_, err = scenarios.Load("put", []byte("rules: []\n"), nil)
	require.EqualError(t, err, "put:1: processors is missing: at least one processor is needed")

	_, err = scenarios.Load("put", []byte(""), base)
	require.EqualError(t, err, "put:1: the document is empty: it needs at least `rules`")
}
