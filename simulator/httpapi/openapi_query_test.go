package httpapi_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

// queryProbes are query strings sent to each query parameter the document
// gives a rule (an enum, a range, a pattern, a minimum length, required),
// by "METHOD /path name" in the document's words: values the rule takes
// and values it refuses. {id} is a real payment's id, in the path and in
// the query.
var queryProbes = map[string][]string{
	"GET /payments status": {"status=AUTHORIZED", "status=AUTHORIZED,SETTLED", "status=%20SETTLED%20,%20DECLINED", "status=AUTHORIZED&status=CANCELLED",
		"status=AUTHORIZED,,", "status=BOGUS", "status=AUTHORIZED,BOGUS", "status=authorized", "status=AUTHORIZED%20SETTLED", "status=AUTHORIZED&status=BOGUS"},
	"GET /payments payment_method_type": {"payment_method_type=PAYMENT_CARD", "payment_method_type=PAYMENT_CARD,APPLE_PAY", "payment_method_type=PAYPAL&payment_method_type=KLARNA",
		"payment_method_type=CARD", "payment_method_type=payment_card", "payment_method_type=PAYMENT_CARD,BOGUS"},
	"GET /payments limit":                   {"limit=1", "limit=100", "limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5"},
	"GET /payments min_amount":              {"min_amount=0", "min_amount=1000", "min_amount=-1", "min_amount=x"},
	"GET /payments max_amount":              {"max_amount=0", "max_amount=1000", "max_amount=-1", "max_amount=x"},
	"GET /payment-instruments customer_id":  {"", "customer_id=", "customer_id=cust-1"},
	"GET /_sandbox/report format":           {"", "format=json", "format=junit", "format=markdown", "format=xml", "format=JSON"},
	"GET /_sandbox/wait paymentId":          {"status=SETTLED&timeout=0s", "paymentId=&status=SETTLED&timeout=0s", "paymentId={id}&status=SETTLED&timeout=0s"},
	"GET /_sandbox/wait status":             {"paymentId={id}&timeout=0s", "paymentId={id}&status=NOPE&timeout=0s", "paymentId={id}&status=SETTLED&timeout=0s"},
	"GET /_sandbox/payment-attempts status": {"", "status=APPROVED", "status=AWAITING_APPROVAL", "status=NOPE", "status=approved"},
	"GET /_sandbox/webhooks/events limit":   {"limit=1", "limit=1000", "limit=0", "limit=1001", "limit=x"},
	"GET /_sandbox/requests limit":          {"limit=1", "limit=50", "limit=0", "limit=x"},
	"GET /_sandbox/requests status":         {"status=422", "status=200", "status=4xx", "status=5XX", "status=600", "status=6xx", "status=99", "status=abc"},
	"GET /_sandbox/openapi.json version":    {"version=2.1", "version=2.4", "version=3.0", "version=2"},
	"GET /_sandbox/openapi.yaml version":    {"version=2.3", "version=1.0"},
}

// hasRule reports whether the document gives p a rule to check.
func hasRule(p *openapi3.Parameter) bool {
	if p.Required {
		return true
	}
	s := p.Schema
	if s == nil {
		return false
	}
	if s.Ref != "" {
		return true
	}
	v := s.Value
	if v.Items != nil {
		v = v.Items.Value
	}
	return len(v.Enum) > 0 || v.Min != nil || v.Max != nil || v.Pattern != "" || v.MinLength > 0
}

// TestOpenAPIQueryParams: every query parameter the document gives a rule
// is described as strictly as the server checks it: each probe the
// document refuses (kin-openapi's request validation), the server refuses
// (RequestValidationError, or UnsupportedApiVersion for a document's
// version), and each it takes, the server takes.
func TestOpenAPIQueryParams(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	pay := a.payFull(1000, numOK, nil)
	require.Equal(t, 200, pay.Status, "%s", pay.Body)
	id := pay.Str("id")

	b, err := httpapi.OpenAPIDocument(simulator.CurrentAPIVersion, httpapi.OpenAPIJSON, "test")
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(b)
	require.NoError(t, err)
	rs, err := openAPIRouters()
	require.NoError(t, err)

	ruled := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		if strings.HasPrefix(path, "/_sandbox/ui/") {
			continue // the dashboard's, not this server's
		}
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value.In == openapi3.ParameterInQuery && hasRule(p.Value) {
					ruled[method+" "+path+" "+p.Value.Name] = true
				}
			}
		}
	}
	for _, must := range []string{"GET /payments status", "GET /payments limit", "GET /payments min_amount", "GET /payment-instruments customer_id", "GET /_sandbox/report format"} {
		assert.True(t, ruled[must], "the document gives %s no rule", must)
	}
	for key := range ruled {
		assert.Contains(t, queryProbes, key, "the document gives %s a rule: add values it takes and refuses to queryProbes", key)
	}
	for key, probes := range queryProbes {
		require.True(t, ruled[key], "queryProbes names %s, which the document gives no rule", key)
		method, rest, _ := strings.Cut(key, " ")
		path, _, _ := strings.Cut(rest, " ")
		url := strings.ReplaceAll(path, "{id}", id)
		var took, refused int
		for _, q := range probes {
			t.Run(key+"?"+q, func(t *testing.T) {
				q = strings.ReplaceAll(q, "{id}", id)
				req := httptest.NewRequest(method, url+"?"+q, nil)
				req.Header.Set("X-API-VERSION", string(simulator.CurrentAPIVersion))
				route, params, err := rs[simulator.CurrentAPIVersion].FindRoute(req)
				require.NoError(t, err)
				docErr := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
					Request: req, PathParams: params, Route: route,
					Options: &openapi3filter.Options{ExcludeRequestBody: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
				})
				r := a.req(method, url+"?"+q, nil)
				serverRefused := slices.Contains([]string{string(simulator.CodeRequestValidationError), string(simulator.CodeUnsupportedAPIVersion)}, r.ErrorID())
				if docErr != nil {
					refused++
					assert.True(t, serverRefused, "the document refuses it (%v), the server answers %d: %s", docErr, r.Status, r.Body)
				} else {
					took++
					assert.False(t, serverRefused, "the document takes it, the server answers %d: %s", r.Status, r.Body)
				}
			})
		}
		assert.NotZero(t, took, "%s: no probe the rule takes", key)
		assert.NotZero(t, refused, "%s: no probe the rule refuses", key)
	}
}
