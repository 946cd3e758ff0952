package httpapi

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// paymentListParams are the query parameters GET /payments accepts: every
// one the vendor's OpenAPI lists.
var paymentListParams = []string{
	"status", "payment_method_type", "processor", "currency_code", "from_date", "to_date", "order_id",
	"min_amount", "max_amount", "customer_id", "merchant_id", "customer_email_address", "last_4_digits",
	"paypal_email", "klarna_email", "limit", "cursor",
}

// warnUnknownParams leaves unknown query parameters ignored, as production
// does, but names them in a Sandbox-Warning header (with the nearest accepted
// name) and records an unknown-query-param hint in the journal.
func warnUnknownParams(c echo.Context, accepted []string) {
	var unknown []string
	for name := range c.QueryParams() {
		if !slices.Contains(accepted, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return
	}
	slices.Sort(unknown)
	parts := make([]string, 0, len(unknown))
	for _, name := range unknown {
		p := "unknown query parameter " + name + " ignored"
		if near := nearestName(name, accepted); near != "" {
			p += " (did you mean " + near + "?)"
		}
		parts = append(parts, p)
	}
	msg := strings.Join(parts, "; ")
	c.Response().Header().Set("Sandbox-Warning", msg)
	addHint(c, HintUnknownQueryParam, c.Request().URL.Path+": "+msg)
}

// warnUnreadable names in a Sandbox-Warning header (beside any other) the
// records a list skipped because they do not decode (their keys).
func warnUnreadable(c echo.Context, keys []string) {
	if len(keys) == 0 {
		return
	}
	c.Response().Header().Add("Sandbox-Warning", "unreadable records skipped (each answers 503 RecordUnreadable): "+strings.Join(keys, ", "))
}

// nearestName is the accepted name closest to name: the same letters once
// case, "_" and "-" are ignored (orderId -> order_id), else the one within an
// edit distance of 3; "" when none is close.
func nearestName(name string, accepted []string) string {
	fold := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	best, bestD := "", 4
	for _, a := range accepted {
		if fold(a) == fold(name) {
			return a
		}
		if d := editDistance(fold(a), fold(name)); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
