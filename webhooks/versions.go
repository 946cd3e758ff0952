package webhooks

import (
	"fmt"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Difference is one way a webhook body of an older version differs from
// the current version's (simulator.WebhookDifference). The goldens under
// testdata/v2.x/ differ from those of 2.4 by exactly the differences of
// their version (TestVersionGoldensDiffer).
type Difference = simulator.WebhookDifference

// Differences lists every difference of the older webhook versions, newest
// first: the kernel's table (the migration notes read it too). What the
// vendor changed without documenting the older shape (2.3: "the payment
// status webhook returns the correct paymentMethodType") is served as 2.4
// and named in UndocumentedDifferences.
var Differences = simulator.WebhookDifferences

// UndocumentedDifferences are version changes the vendor names without
// showing the older behaviour: every version serves 2.4's there.
var UndocumentedDifferences = []string{
	"2.3 fixed paymentMethodType in payment-status webhooks; what older versions sent is not documented, so they send 2.4's",
}

// DifferencesOf lists the differences of version v from the current one
// (none for 2.4).
func DifferencesOf(v simulator.APIVersion) []Difference { return simulator.WebhookDifferencesOf(v) }

// DifferencesMarkdown is the table of Differences for the docs: one row
// per member, one column per older version.
func DifferencesMarkdown() string {
	old := simulator.APIVersions[:len(simulator.APIVersions)-1]
	var b strings.Builder
	b.WriteString("| Member | Kind |")
	for _, v := range old {
		fmt.Fprintf(&b, " %s |", v)
	}
	b.WriteString(" Why |\n|---|---|")
	for range old {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, d := range Differences {
		fmt.Fprintf(&b, "| `%s` | %s |", d.Path, d.Kind)
		for _, v := range old {
			mark := "as 2.4"
			if v.Before(d.Below) {
				mark = d.Kind
				if d.Kind == "value" {
					mark = `"` + string(v) + `"`
				}
			}
			fmt.Fprintf(&b, " %s |", mark)
		}
		fmt.Fprintf(&b, " %s |\n", d.Why)
	}
	return b.String()
}
