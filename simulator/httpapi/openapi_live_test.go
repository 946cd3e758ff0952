package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

// openAPIRouters are the served documents, loaded and validated with
// kin-openapi once per test binary, with their routers.
var openAPIRouters = sync.OnceValues(func() (map[simulator.APIVersion]routers.Router, error) {
	out := map[simulator.APIVersion]routers.Router{}
	for _, v := range simulator.APIVersions {
		b, err := httpapi.OpenAPIDocument(v, httpapi.OpenAPIJSON, "test")
		if err != nil {
			return nil, err
		}
		doc, err := openapi3.NewLoader().LoadFromData(b)
		if err != nil {
			return nil, err
		}
		r, err := legacy.NewRouter(doc)
		if err != nil {
			return nil, err
		}
		out[v] = r
	}
	return out, nil
})

// checkedShapes are the answer shapes checkedByOpenAPI validated.
var checkedShapes sync.Map

// enumKeys are the members whose value counts in an answer's shape: the
// schema restricts them to a list.
var enumKeys = map[string]bool{"status": true, "processorStatus": true, "errorId": true, "eventType": true, "version": true, "webhookVersion": true}

// answerShape is the structure of a JSON answer: its members' paths and
// types, and the values of enumKeys (the body itself when it is not JSON).
func answerShape(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	var sb strings.Builder
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			sb.WriteByte('{')
			for _, k := range slices.Sorted(maps.Keys(x)) {
				sb.WriteString(k + ":")
				walk(x[k], k)
				sb.WriteByte(',')
			}
			sb.WriteByte('}')
		case []any:
			sb.WriteByte('[')
			for _, e := range x {
				walk(e, key)
				sb.WriteByte(',')
			}
			sb.WriteByte(']')
		case string:
			if enumKeys[key] {
				sb.WriteString(strconv.Quote(x))
			} else {
				sb.WriteByte('s')
			}
		case nil:
			sb.WriteByte('n')
		case bool:
			sb.WriteByte('b')
		case float64:
			sb.WriteByte('f')
		}
	}
	walk(v, "")
	return sb.String()
}

// captured is an answer as the client received it.
type captured struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captured) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *captured) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *captured) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *captured) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// checkedByOpenAPI wraps the API so that every answer a test receives is
// validated against the OpenAPI document of the request's version (2.4
// without one): the goldens are a few answers, the tests make them all.
func checkedByOpenAPI(t testing.TB, h http.Handler) http.Handler {
	rs, err := openAPIRouters()
	if err != nil {
		t.Fatalf("openapi: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &captured{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		v, ok := simulator.ParseAPIVersion(r.Header.Get("X-Api-Version"))
		if !ok || strings.HasPrefix(r.URL.Path, "/_sandbox") || strings.HasPrefix(r.URL.Path, "/client/") {
			v = simulator.CurrentAPIVersion
		}
		req := r.Clone(context.Background())
		req.URL.Path = strings.TrimRight(req.URL.Path, "/")
		route, params, err := rs[v].FindRoute(req)
		if err != nil || cw.status == 0 {
			return // not a route of the document (404, 405): the error envelope is checked elsewhere
		}
		shape := r.Method + " " + route.Path + " " + string(v) + " " + strconv.Itoa(cw.status) + " " + answerShape(cw.body.Bytes())
		if _, seen := checkedShapes.LoadOrStore(shape, true); seen {
			return // an answer of this shape validated already (validation compiles the schema: costly under -race)
		}
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 cw.status, Header: cw.Header(),
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		in.SetBodyBytes(cw.body.Bytes())
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			t.Errorf("openapi: the answer of %s %s (%s, %d) does not validate: %v\n%s", r.Method, r.URL, v, cw.status, err, cw.body.String())
		}
	})
}

// TestOpenAPIDocumentAnswers: the answers that are documents (the report
// in its three forms, the snapshot, both explanations, the scenario rules
// as YAML and JSON, the OpenAPI document as JSON and YAML) come in the media
// types the document names and validate against its schemas
// (checkedByOpenAPI validates every answer).
func TestOpenAPIDocumentAnswers(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	pay := a.payFull(1000, numOK, nil)
	require.Equal(t, 200, pay.Status, "%s", pay.Body)
	for _, tc := range []struct {
		method, path string
		body         any
		accept       string
		media        string
	}{
		{"GET", "/_sandbox/report", nil, "", "application/json"},
		{"GET", "/_sandbox/report?format=junit", nil, "", "application/xml"},
		{"GET", "/_sandbox/report?format=markdown", nil, "", "text/markdown"},
		{"GET", "/_sandbox/snapshot", nil, "", "application/json"},
		{"GET", "/_sandbox/snapshot?includeSecrets=true", nil, "", "application/json"},
		{"GET", "/_sandbox/payments/" + pay.Str("id") + "/explain", nil, "", "application/json"},
		{"POST", "/_sandbox/scenarios/explain", map[string]any{"amount": 1000, "currencyCode": "EUR", "card": numOK}, "", "application/json"},
		{"GET", "/_sandbox/scenarios", nil, "", "application/yaml"},
		{"GET", "/_sandbox/scenarios", nil, "application/json", "application/json"},
		{"GET", httpapi.OpenAPIPath + ".json", nil, "", "application/json"},
		{"GET", httpapi.OpenAPIPath + ".yaml?version=2.2", nil, "", "application/yaml"},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.accept, func(t *testing.T) {
			var headers []string
			if tc.accept != "" {
				headers = append(headers, "Accept: "+tc.accept)
			}
			r := a.must(200, tc.method, tc.path, tc.body, headers...)
			media, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
			assert.Equal(t, tc.media, media)
		})
	}
}
