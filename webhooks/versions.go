package webhooks

import (
	"fmt"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Difference is one way a webhook body of an older version differs from
// the current version's (2.4): every version before Below differs so.
// The goldens under testdata/v2.x/ differ from those of 2.4 by exactly
// the differences of their version (TestVersionGoldensDiffer).
type Difference struct {
	// Path is the member's JSON path in the body, [] for every array index.
	Path string
	// Kind is "absent" (the member is left out) or "value" (it is there
	// with another value).
	Kind string
	// Below is the first version without the difference.
	Below simulator.APIVersion
	// Why says what it is and where the vendor documents it.
	Why string
}

// Differences lists every difference of the older webhook versions, newest
// first. What the vendor changed without documenting the older shape (2.3:
// "the payment status webhook returns the correct paymentMethodType") is
// served as 2.4 and named in UndocumentedDifferences.
var Differences = []Difference{
	{"version", "value", simulator.V24, "the body's version: the tenant's webhook version when the event was made"},
	{"payment.transactions[].authorizationCode", "absent", simulator.V24, "added by 2.4 (interface spec, versioning table)"},
	{"payment.transactions[].events", "absent", simulator.V24, "2.4 carries transactions.events in place of processor data (interface spec, versioning table); the processor identifiers processorTransactionId and processorMerchantId stay on every version, as the vendor webhooks OpenAPI shows them"},
	{"payment.customer", "absent", simulator.V22, "2.1 payment-status bodies carry no customer object (vendor payment-status webhook migration guide)"},
	{"payment.paymentMethod.isVaulted", "absent", simulator.V22, "2.1 payment-status bodies carry no paymentMethod.isVaulted (vendor payment-status webhook migration guide)"},
}

// UndocumentedDifferences are version changes the vendor names without
// showing the older behaviour: every version serves 2.4's there.
var UndocumentedDifferences = []string{
	"2.3 fixed paymentMethodType in payment-status webhooks; what older versions sent is not documented, so they send 2.4's",
}

// DifferencesOf lists the differences of version v from the current one
// (none for 2.4).
func DifferencesOf(v simulator.APIVersion) []Difference {
	var out []Difference
	for _, d := range Differences {
		if v.Before(d.Below) {
			out = append(out, d)
		}
	}
	return out
}

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
