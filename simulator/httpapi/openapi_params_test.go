package httpapi

import (
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/paysandbox/paysandbox/simulator"
)

// queryRule is a query parameter's rule as its route's handler checks it.
type queryRule struct {
	schema   func() *openapi3.Schema
	enum     *namedEnum // instead of schema: one value of a named enum
	required bool
	desc     string
}

// routeQuery are the query parameters whose rules are their route's, by
// "METHOD path name" (routes.go's path): what the handler checks, in the
// document's words. They win over queryParamSchemas, which names the rest.
// TestOpenAPIQueryParams sends each value a rule refuses and each it takes,
// and the server must answer alike.
var routeQuery = map[string]queryRule{
	"GET /payments status": {schema: func() *openapi3.Schema { return commaList(paymentStatusNames()) },
		desc: "Payment statuses (" + strings.Join(paymentStatusNames(), ", ") + "): repeat the parameter, or give a comma list."},
	"GET /payments payment_method_type": {schema: func() *openapi3.Schema { return commaList(simulator.PaymentMethodTypes) },
		desc: "The vendor's payment method types: repeat the parameter, or give a comma list. The sandbox's payments are PAYMENT_CARD."},
	"GET /payments/:id expand":             {schema: expandList, desc: expandDesc},
	"GET /_sandbox/payments/:id expand":    {schema: expandList, desc: expandDesc},
	"GET /payments limit":                  {schema: intRange(1, paymentPageMax)},
	"GET /payments min_amount":             {schema: intRange(0, -1)},
	"GET /payments max_amount":             {schema: intRange(0, -1)},
	"GET /payment-instruments customer_id": {schema: nonEmpty, required: true},
	"GET /_sandbox/report format": {schema: func() *openapi3.Schema {
		s := enumSchema(ReportFormats)
		s.Default = ReportJSON
		return s
	}},
	"GET /_sandbox/wait paymentId":          {schema: nonEmpty, required: true},
	"GET /_sandbox/wait status":             {enum: &paymentStatusEnum, required: true},
	"GET /_sandbox/payment-attempts status": {enum: &attemptStatusEnum},
	"GET /_sandbox/webhooks/events limit":   {schema: intRange(1, eventPageMax)},
	"GET /_sandbox/requests limit":          {schema: intRange(1, -1), desc: "At most the journal's size (--journal-size)."},
	"GET /_sandbox/requests status": {schema: func() *openapi3.Schema {
		s := openapi3.NewStringSchema()
		s.Pattern = `^(?:[1-5][0-9]{2}|[1-5][xX]{2})$`
		return s
	}, desc: "An HTTP status (422) or a class of them (4xx)."},
}

// expandList is the query's expand as the handlers read it (queryList): a
// list whose values other than transactions.events are ignored.
func expandList() *openapi3.Schema {
	return openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema())
}

const expandDesc = "transactions.events adds each transaction's events; other values are ignored. Repeat the parameter, or give a comma list."

// The page sizes the list handlers take (their `limit`).
const (
	paymentPageMax = 100
	eventPageMax   = 1000
)

// queryParameter is the query parameter name of op.
func (b *openAPIBuilder) queryParameter(op apiOp, name string) *openapi3.Parameter {
	p := openapi3.NewQueryParameter(name)
	rule, ok := routeQuery[op.operation().Method+" "+op.operation().Path+" "+name]
	switch {
	case ok && rule.enum != nil:
		p.Schema = b.answers.enum(*rule.enum)
	case ok:
		p.Schema = openapi3.NewSchemaRef("", rule.schema())
	default:
		s := openapi3.NewStringSchema()
		if f, ok := queryParamSchemas[name]; ok {
			s = f()
		}
		p.Schema = openapi3.NewSchemaRef("", s)
	}
	p.Required, p.Description = rule.required, rule.desc
	return p
}

// intRange is an integer from min to max (max < 0: no maximum but int64's).
func intRange(min, max int64) func() *openapi3.Schema {
	return func() *openapi3.Schema {
		s := openapi3.NewInt64Schema().WithMin(float64(min))
		if max >= 0 {
			s = s.WithMax(float64(max))
		}
		return s
	}
}

// nonEmpty is a string of at least one character.
func nonEmpty() *openapi3.Schema { return openapi3.NewStringSchema().WithMinLength(1) }

// commaList is an array parameter whose every value is one of vals or a
// comma list of them (spaces around each, and empty entries, allowed), as
// queryList reads it.
func commaList(vals []string) *openapi3.Schema {
	alt := make([]string, len(vals))
	for i, v := range vals {
		alt[i] = regexp.QuoteMeta(v)
	}
	one := `(?:(?:` + strings.Join(alt, "|") + `)\s*)?`
	item := openapi3.NewStringSchema()
	item.Pattern = `^\s*` + one + `(?:,\s*` + one + `)*$`
	return openapi3.NewArraySchema().WithItems(item)
}
