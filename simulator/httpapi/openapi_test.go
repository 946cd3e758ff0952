package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// loadOpenAPI loads version v's served document (format) with kin-openapi's
// loader and validates it.
func loadOpenAPI(t testing.TB, v simulator.APIVersion, format string) *openapi3.T {
	t.Helper()
	key := string(v) + format
	if doc, ok := loadedOpenAPI.Load(key); ok {
		return doc.(*openapi3.T)
	}
	doc := loadOpenAPIOnce(t, v, format)
	loadedOpenAPI.Store(key, doc)
	return doc
}

// loadedOpenAPI keeps loadOpenAPI's documents (tests only read them).
var loadedOpenAPI sync.Map

func loadOpenAPIOnce(t testing.TB, v simulator.APIVersion, format string) *openapi3.T {
	t.Helper()
	b, err := OpenAPIDocument(v, format, "test")
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(b)
	require.NoError(t, err, "%s %s", v, format)
	require.NoError(t, doc.Validate(context.Background()), "%s %s", v, format)
	return doc
}

// TestOpenAPIDocumentValidates: every version's document, JSON and YAML,
// loads and validates as OpenAPI 3.1, and both forms say the same.
func TestOpenAPIDocumentValidates(t *testing.T) {
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) {
			j := loadOpenAPI(t, v, OpenAPIJSON)
			y := loadOpenAPI(t, v, OpenAPIYAML)
			assert.Equal(t, OpenAPISpecVersion, j.OpenAPI)
			assert.True(t, j.IsOpenAPI31OrLater())
			assert.Equal(t, string(v), j.Info.Version)
			jb, err := json.Marshal(j)
			require.NoError(t, err)
			yb, err := json.Marshal(y)
			require.NoError(t, err)
			assert.JSONEq(t, string(jb), string(yb), "the YAML form is the JSON form")
		})
	}
}

// TestOpenAPI31Support proves that kin-openapi applies OpenAPI 3.1 (JSON
// Schema 2020-12) rules, both to the document and to values: a 3.0-only
// form is refused in a 3.1 document, a type list with "null" takes null,
// and a closed request schema refuses an unknown field.
func TestOpenAPI31Support(t *testing.T) {
	bad := `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
		"components": {"schemas": {"X": {"type": "integer", "minimum": 1, "exclusiveMinimum": true}}}}`
	doc, err := openapi3.NewLoader().LoadFromData([]byte(bad))
	if err == nil {
		err = doc.Validate(context.Background())
	}
	require.Error(t, err, "a boolean exclusiveMinimum is OpenAPI 3.0: a 3.1 document must be refused")

	doc = loadOpenAPI(t, simulator.CurrentAPIVersion, OpenAPIJSON)
	capture := doc.Components.Schemas["PaymentCaptureAPIRequest"].Value
	visit := func(body string) error {
		var v any
		require.NoError(t, json.Unmarshal([]byte(body), &v))
		return capture.VisitJSON(v, openapi3.EnableJSONSchema2020())
	}
	assert.NoError(t, visit(`{"amount": 100, "final": null}`), "an optional member takes null, as the validator does")
	assert.Error(t, visit(`{"amount": 0}`), "amount at least 1")
	assert.Error(t, visit(`{"amount": "10.00"}`))
	assert.Error(t, visit(`{"amountt": 1}`), "closed schema")
}

// TestOpenAPIRoutes: every route the server registers is in the document
// (and in apiOps), and every apiOp is a route the server registers.
func TestOpenAPIRoutes(t *testing.T) {
	s := New(nil, Options{})
	doc := loadOpenAPI(t, simulator.CurrentAPIVersion, OpenAPIJSON)
	served := map[string]bool{}
	for _, r := range s.e.Routes() {
		key := r.Method + " " + r.Path
		served[key] = true
		item := doc.Paths.Value(openAPIPathOf(r.Path))
		require.NotNil(t, item, "%s is served but missing from the OpenAPI document (add it to apiOps)", key)
		assert.NotNil(t, item.GetOperation(r.Method), "%s is served but missing from the OpenAPI document (add it to apiOps)", key)
	}
	for _, op := range apiOps {
		if op.dashboard {
			assert.True(t, strings.HasPrefix(op.path, "/_sandbox/ui/"), "%s: the dashboard serves /_sandbox/ui/ only", op.path)
			continue
		}
		o := op.operation()
		assert.True(t, served[o.Method+" "+o.Path], "apiOps documents %s %s, which is not served", o.Method, o.Path)
	}
}

// TestOpenAPIVersions: each version's document applies the version
// differences of simulator.VersionDifferences.
func TestOpenAPIVersions(t *testing.T) {
	reqProps := func(doc *openapi3.T, model string) openapi3.Schemas {
		return doc.Components.Schemas[model].Value.Properties
	}
	for _, v := range simulator.APIVersions {
		t.Run(string(v), func(t *testing.T) {
			doc := loadOpenAPI(t, v, OpenAPIJSON)
			attempts := doc.Paths.Value("/payment-attempts/{id}/approve")
			assert.Equal(t, v.Has(simulator.DiffAttemptRoutes), attempts == nil, "/payment-attempts below 2.4")

			create := reqProps(doc, "PaymentCreationAPIRequest")
			_, hasExpand := create["expand"]
			assert.Equal(t, !v.Has(simulator.DiffNewFields), hasExpand, "expand")
			_, hasFPR := create["paymentMethod"].Value.Properties["firstPaymentReason"]
			assert.Equal(t, !v.Has(simulator.DiffNewFields), hasFPR, "paymentMethod.firstPaymentReason")
			li := reqProps(doc, "ClientSessionAPIRequest")["order"].Value.Properties["lineItems"].Value.Items.Value.Properties
			_, hasPD := li["productData"]
			assert.Equal(t, !v.Has(simulator.DiffProductData), hasPD, "order.lineItems[].productData")

			txn := doc.Components.Schemas["Transaction"].Value.Properties
			_, hasCode := txn["authorizationCode"]
			assert.Equal(t, !v.Has(simulator.DiffAnswerShape), hasCode, "transactions[].authorizationCode")
			_, hasPDAnswer := doc.Components.Schemas["LineItem"].Value.Properties["productData"]
			assert.Equal(t, !v.Has(simulator.DiffProductData), hasPDAnswer, "answer productData")

			capture := doc.Paths.Value("/payments/{id}/capture").Post.Responses
			if v.Has(simulator.DiffIdempotency400) {
				assert.Contains(t, *capture.Value("400").Value.Description, string(simulator.CodeTransactionRequestIdempotencyKeyAlreadyExists))
				assert.Nil(t, capture.Value("409"))
			} else {
				assert.Contains(t, *capture.Value("409").Value.Description, string(simulator.CodeIdempotencyKeyAlreadyExists))
			}
			ver := doc.Components.Parameters["ApiVersionHeader"].Value.Schema.Value.Enum
			assert.Equal(t, []any{string(v)}, ver)
		})
	}
}

// TestAnswerFieldsUntil: the answer fields answerFieldsUntil names are the
// ones the DTO functions leave out, version by version.
func TestAnswerFieldsUntil(t *testing.T) {
	p := typicalPayment()
	p.Order = &simulator.Order{LineItems: []simulator.LineItem{{ProductData: &simulator.ProductData{Brand: "Acme"}}}}
	mode := simulator.ApprovalManual
	cs := &simulator.ClientSession{ApprovalMode: mode, CurrentAttemptID: "att-1",
		Data: simulator.SessionData{Order: p.Order}, ExpiresAt: time.Unix(0, 0)}
	for _, v := range simulator.APIVersions {
		pay := jsonTree(t, toPaymentDTO(p, v, true))
		sess := jsonTree(t, toSessionDTO(cs, v, false))
		present := map[string]bool{
			"Transaction.authorizationCode":  has(pay, "transactions", 0, "authorizationCode"),
			"Transaction.events":             has(pay, "transactions", 0, "events"),
			"LineItem.productData":           has(pay, "order", "lineItems", 0, "productData"),
			"ClientSession.currentAttemptId": has(sess, "currentAttemptId"),
			"ClientSession.approvalMode":     has(sess, "approvalMode"),
		}
		var named []string
		for _, d := range answerFieldsUntil {
			named = append(named, d.fields...)
		}
		assert.ElementsMatch(t, named, mapKeys(present))
		for f, ok := range present {
			assert.Equal(t, !v.Has(answerDrop(f)), ok, "%s on %s", f, v)
		}
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func jsonTree(t testing.TB, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// has reports whether the member at path exists.
func has(v any, path ...any) bool {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			if v, ok = m[k]; !ok {
				return false
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return false
			}
			v = a[k]
		}
	}
	return true
}

// goldenRoutes names the route of each golden answer; the status is 200,
// or the one of its errorId.
var goldenRoutes = map[string]string{
	"attempt_abort":                     "POST /payment-attempts/{id}/abort",
	"attempt_approve":                   "POST /payment-attempts/{id}/approve",
	"attempt_awaiting":                  "GET /_sandbox/payment-attempts/{id}",
	"attempt_tokenize_manual":           "POST /client/payment-instruments",
	"error_client_token":                "POST /client/payment-instruments",
	"error_failed_verification":         "POST /payment-instruments/{token}/vault",
	"error_metadata_empty_key":          "POST /client-session",
	"error_session_patch_approval_mode": "PATCH /client-session",
	"error_tokenize_luhn":               "POST /client/payment-instruments",
	"instrument_list":                   "GET /payment-instruments",
	"instrument_vault":                  "POST /payment-instruments/{token}/vault",
	"list_summary":                      "GET /payments",
	"payment_authorized":                "GET /payments/{id}",
	"payment_cancelled":                 "GET /payments/{id}",
	"payment_create_authorized":         "POST /payments",
	"payment_create_authorized_v2.1":    "POST /payments",
	"payment_create_authorized_v2.2":    "POST /payments",
	"payment_create_authorized_v2.3":    "POST /payments",
	"payment_declined":                  "GET /payments/{id}",
	"payment_failed":                    "GET /payments/{id}",
	"payment_merged":                    "POST /payments",
	"payment_partially_settled":         "GET /payments/{id}",
	"payment_pending_3ds":               "GET /payments/{id}",
	"payment_refunded":                  "GET /payments/{id}",
	"payment_settled":                   "GET /payments/{id}",
	"payment_settling":                  "GET /payments/{id}",
	"session_create":                    "POST /client-session",
	"session_get":                       "GET /client-session",
	"tokenize_manual":                   "POST /client/payment-instruments",
	"tokenize_visa":                     "POST /client/payment-instruments",
	// cmd/paysandbox/testdata (the same API through the binary's composition).
	"cmd/error_unauthorized": "POST /client-session",
	"cmd/error_validation":   "POST /client-session",
	"cmd/tokenize_first6":    "POST /client/payment-instruments",
}

// TestOpenAPIGoldens: every golden answer validates against the response
// schema of its route and status in the document of its version (2.4 unless
// the golden's name ends in _v2.x), with kin-openapi's response validator.
func TestOpenAPIGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	cmdFiles, err := filepath.Glob("../../cmd/paysandbox/testdata/*.json")
	require.NoError(t, err)
	files = append(files, cmdFiles...)
	require.NotEmpty(t, cmdFiles)
	docs := map[simulator.APIVersion]*openapi3.T{}
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if strings.Contains(f, "cmd/paysandbox") {
			name = "cmd/" + name
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			route, ok := goldenRoutes[name]
			require.True(t, ok, "golden %s has no route in goldenRoutes", f)
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			v := simulator.CurrentAPIVersion
			if i := strings.LastIndex(name, "_v2."); i > 0 {
				v = simulator.APIVersion(name[i+2:])
			}
			if docs[v] == nil {
				docs[v] = loadOpenAPI(t, v, OpenAPIJSON)
			}
			validateAnswer(t, docs[v], route, body)
		})
	}
	for name := range goldenRoutes {
		assert.True(t, seen[name], "goldenRoutes names %s, which has no golden file", name)
	}
}

// TestOpenAPIAnswerChecks: the answer schemas are strict enough to catch a
// wrong answer: a missing required field, a wrong type, an unknown status.
func TestOpenAPIAnswerChecks(t *testing.T) {
	doc := loadOpenAPI(t, simulator.CurrentAPIVersion, OpenAPIJSON)
	good, err := os.ReadFile("testdata/payment_settled.json")
	require.NoError(t, err)
	for name, change := range map[string]func(m map[string]any){
		"status not a payment status": func(m map[string]any) { m["status"] = "DONE" },
		"amount a string":             func(m map[string]any) { m["amount"] = "10.00" },
		"id missing":                  func(m map[string]any) { delete(m, "id") },
		"transactions null":           func(m map[string]any) { m["transactions"] = nil },
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(good, &m))
			change(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			route := doc.Paths.Value("/payments/{id}")
			in := &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: httptest.NewRequest("GET", "/payments/x", nil),
					Route: &routers.Route{Spec: doc, Path: "/payments/{id}", PathItem: route, Method: "GET", Operation: route.Get}},
				Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Options: &openapi3filter.Options{IncludeResponseStatus: true},
			}
			in.SetBodyBytes(b)
			assert.Error(t, openapi3filter.ValidateResponse(context.Background(), in))
		})
	}
}

// validateAnswer checks body as the answer of route ("METHOD /path") with the
// status of its errorId (200 without one).
func validateAnswer(t *testing.T, doc *openapi3.T, route string, body []byte) {
	t.Helper()
	method, path, _ := strings.Cut(route, " ")
	status := http.StatusOK
	var envelope struct {
		Error *struct {
			ErrorID string `json:"errorId"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && envelope.Error != nil {
		st, ok := statusOf[simulator.Code(envelope.Error.ErrorID)]
		require.True(t, ok, "errorId %q", envelope.Error.ErrorID)
		status = st
	}
	item := doc.Paths.Value(path)
	require.NotNil(t, item, "%s is not in the document", path)
	op := item.GetOperation(method)
	require.NotNil(t, op, "%s is not in the document", route)
	req := httptest.NewRequest(method, strings.ReplaceAll(strings.ReplaceAll(path, "{", "x"), "}", "x"), nil)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req,
			Route: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}},
		Status:  status,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), in), "%s %d:\n%s", route, status, body)
}

// TestOpenAPIServed: the document is served with no key, in JSON and YAML,
// for the version asked; an unknown version is 400 UnsupportedApiVersion.
func TestOpenAPIServed(t *testing.T) {
	s := New(nil, Options{Version: "1.2.3-test"})
	get := func(url string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.Routes().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
		return rec
	}
	for _, tc := range []struct {
		url, media string
		v          simulator.APIVersion
		format     string
	}{
		{OpenAPIPath + ".json", "application/json", simulator.CurrentAPIVersion, OpenAPIJSON},
		{OpenAPIPath + ".yaml", "application/yaml", simulator.CurrentAPIVersion, OpenAPIYAML},
		{OpenAPIPath + ".json?version=2.2", "application/json", simulator.V22, OpenAPIJSON},
		{OpenAPIPath + ".yaml?version=2.1", "application/yaml", simulator.V21, OpenAPIYAML},
	} {
		t.Run(tc.url, func(t *testing.T) {
			rec := get(tc.url)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, tc.media, rec.Header().Get("Content-Type"))
			want, err := OpenAPIDocument(tc.v, tc.format, "1.2.3-test")
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, rec.Body.Bytes()))
		})
	}
	rec := get(OpenAPIPath + ".json?version=3.0")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	var body errorBody
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	assert.Equal(t, string(simulator.CodeUnsupportedAPIVersion), body.Error.ErrorID)
	assert.Contains(t, body.Error.Description, simulator.AcceptedAPIVersions())
}

// TestOpenAPINoKeyRoutes: the answers of the routes that need no key
// (health, the document itself, the version notes) validate against the
// document, a failing readiness probe's 503 included.
func TestOpenAPINoKeyRoutes(t *testing.T) {
	doc := loadOpenAPI(t, simulator.CurrentAPIVersion, OpenAPIJSON)
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	ready := error(nil)
	s := New(nil, Options{Version: "test", Ready: func() error { return ready }})
	check := func(url string, wantStatus int) {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, url, nil)
		s.Routes().ServeHTTP(rec, req)
		require.Equal(t, wantStatus, rec.Code, "%s: %s", url, rec.Body.String())
		route, params, err := router.FindRoute(req)
		require.NoError(t, err, url)
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 rec.Code, Header: rec.Header(), Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		in.SetBodyBytes(rec.Body.Bytes())
		assert.NoError(t, openapi3filter.ValidateResponse(context.Background(), in), "%s: %s", url, rec.Body.String())
	}
	check("/healthz", http.StatusOK)
	check("/readyz", http.StatusOK)
	ready = errors.New("store closed")
	check("/readyz", http.StatusServiceUnavailable)
	check(VersionNotesPath, http.StatusOK)
	check(OpenAPIPath+".json?version=2.3", http.StatusOK)
	check(OpenAPIPath+".yaml", http.StatusOK)
	check(OpenAPIPath+".json?version=1.0", http.StatusBadRequest)
}

// TestOpenAPIAnswerSchemas: no success answer is described as a bare
// object (one whose members the document does not name), and every answer
// that is not JSON is a string document of its media type, so that a
// validating proxy checks JSON answers and passes the others through.
func TestOpenAPIAnswerSchemas(t *testing.T) {
	for _, v := range simulator.APIVersions {
		doc := loadOpenAPI(t, v, OpenAPIJSON)
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				for status, r := range op.Responses.Map() {
					if !strings.HasPrefix(status, "2") {
						continue
					}
					for media, mt := range r.Value.Content {
						where := fmt.Sprintf("%s: %s %s %s %s", v, method, path, status, media)
						s := mt.Schema.Value
						if media != "application/json" {
							assert.True(t, s.Type.Is(openapi3.TypeString), "%s: a string", where)
							continue
						}
						bare := s.Type.Is(openapi3.TypeObject) && len(s.Properties) == 0 && s.AdditionalProperties.Schema == nil &&
							len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) == 0
						assert.False(t, bare, "%s: a bare object", where)
					}
				}
			}
		}
	}
}
