package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	paysandbox "github.com/paysandbox/paysandbox"
	"github.com/paysandbox/paysandbox/scenarios"
)

// BenchmarkDecide picks the rule for a payment the shipped rules do not
// name (the test card 4111..., 1000 EUR): every rule is tried in turn, the
// default processor authorizes, as for the shared benchmark's payments.
func BenchmarkDecide(b *testing.B) {
	doc, err := scenarios.Load("scenarios.yaml", paysandbox.DefaultScenarios, nil)
	require.NoError(b, err)
	e := scenarios.New(doc)
	r := req(1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := e.Decide(r); err != nil {
			b.Fatal(err)
		}
	}
}
