package webhooks_test

import (
	"fmt"
	"math"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"encoding/json"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// vendorSchemaFile is the vendor's webhooks OpenAPI, read at test time from
// ../shared/reference relative to the repository root (never copied into the repo).
const vendorSchemaFile = "vendor-webhooks-openapi-v2.4.yml"

// deviation is a place where a golden body departs from the vendor schema
// because the interface spec (or docs/webhooks.md, which builds on it) says so.
type deviation struct {
	Path   string // JSON path, [] for any array index
	Kind   string // required | type | enum
	Reason string
}

// deviations is the complete list: the schema test fails on any other
// departure, and on an entry no golden needs any more.
var deviations = []deviation{
	{"payment.transactions[].id", "required", "the interface spec's transaction overview has no id (transactions are identified by processorTransactionId and events[].id)"},
	{"payment.transactions[].processor", "required", "the interface spec names it processorName in webhooks; the vendor schema's own properties say processorName too"},
	{"payment.transactions[].type", "required", "the interface spec: named `type` in the authorize response and `transactionType` in the status webhook"},
	{"payment.transactions[].status", "required", "the interface spec names it processorStatus; the vendor schema's own properties say processorStatus too"},
	{"payment.paymentMethod.paymentMethodData.first6Digits", "type", "the interface spec: first6Digits is opt-in and null by default (docs/webhooks.md: null unless the tenant opted in)"},
	{"processor", "enum", "DISPUTE.STATUS comes from the sandbox's own processors (STRIPE, ADYEN, ...); the vendor's beta enum lists only ADYEN and BRAINTREE"},
}

// goldenSchemas maps each golden body to its vendor schema.
var goldenSchemas = map[string]string{
	"payment_status_PENDING":    "PaymentStatusWebhookPayload",
	"payment_status_AUTHORIZED": "PaymentStatusWebhookPayload",
	"payment_status_SETTLED":    "PaymentStatusWebhookPayload",
	"payment_status_DECLINED":   "PaymentStatusWebhookPayload",
	"payment_refund":            "PaymentRefundWebhookPayload",
	"dispute_opened":            "DisputeOpenWebhookPayload",
	"dispute_status":            "DisputeStatusWebhookPayload",
}

// findVendorSchema looks for ../shared/reference/<file> from the repository
// root, then from its parents (worktrees live one level deeper).
func findVendorSchema() string {
	dir, err := filepath.Abs("..") // the package's parent is the repository root
	if err != nil {
		return ""
	}
	for range 4 {
		p := filepath.Join(dir, "..", "shared", "reference", vendorSchemaFile)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

func TestGoldensMatchVendorSchema(t *testing.T) {
	path := findVendorSchema()
	if path == "" {
		t.Skipf("%s not found in ../shared/reference (relative to the repository root): schema check skipped", vendorSchemaFile)
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	v := &validator{schemas: schemas}

	used := map[deviation]bool{}
	for name, schemaName := range goldenSchemas {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
			require.NoError(t, err)
			var body any
			require.NoError(t, json.Unmarshal(b, &body))
			s, ok := schemas[schemaName]
			require.True(t, ok, "schema %s", schemaName)
			for _, is := range v.validate(s, body, "") {
				dv, ok := allowed(is)
				if !assert.True(t, ok, "%s: %s at %s (%s) is not in the deviations table", name, is.kind, is.path, is.msg) {
					continue
				}
				used[dv] = true
			}
		})
	}
	for _, d := range deviations {
		assert.True(t, used[d], "deviation %s %s is needed by no golden: remove it", d.Kind, d.Path)
	}
}

// TestDocsListDeviations: the webhooks page tells users of every place the
// bodies depart from the vendor schema, by the vendor's field path.
func TestDocsListDeviations(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "webhooks.md"))
	require.NoError(t, err)
	page := string(raw)
	i := strings.Index(page, "## Differences from the vendor's webhook schema")
	require.GreaterOrEqual(t, i, 0, "docs/webhooks.md has a section on the differences")
	section, _, _ := strings.Cut(page[i+1:], "\n## ")
	for _, d := range deviations {
		assert.Contains(t, section, "`"+d.Path+"`", "docs/webhooks.md lists the deviation at %s (%s)", d.Path, d.Reason)
	}
}

// The validator must catch what it claims to check, or the test above proves nothing.
func TestValidatorCatchesDepartures(t *testing.T) {
	path := findVendorSchema()
	if path == "" {
		t.Skipf("%s not found: skipped", vendorSchemaFile)
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	v := &validator{schemas: doc["components"].(map[string]any)["schemas"].(map[string]any)}
	s := v.schemas["PaymentStatusWebhookPayload"]
	for _, tc := range []struct {
		name string
		body string
		kind string
	}{
		{"bad enum", `{"payment":{"status":"DONE"}}`, "enum"},
		{"bad type", `{"payment":{"amount":"ten"}}`, "type"},
		{"bad date", `{"date":"yesterday"}`, "format"},
		{"bad uuid", `{"notificationConfig":{"id":"x"}}`, "format"},
		{"missing required", `{"payment":{"processor":{},"statusReason":{}}}`, "required"},
		{"not an integer", `{"payment":{"amount":1.5}}`, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &body))
			kinds := []string{}
			for _, is := range v.validate(s, body, "") {
				kinds = append(kinds, is.kind)
			}
			assert.Contains(t, kinds, tc.kind)
		})
	}
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

func allowed(is issue) (deviation, bool) {
	p := arrayIndex.ReplaceAllString(is.path, "[]")
	for _, d := range deviations {
		if d.Path == p && d.Kind == is.kind {
			return d, true
		}
	}
	return deviation{}, false
}

type issue struct{ path, kind, msg string }

// validator checks a JSON value against the OpenAPI 3.0 subset the vendor
// file uses: $ref, allOf, anyOf, type, properties, required, items, enum,
// format (date-time, uuid, email), minLength, maxLength, minimum, nullable.
type validator struct{ schemas map[string]any }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (v *validator) validate(node any, val any, path string) []issue {
	s, _ := node.(map[string]any)
	if s == nil {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		return v.validate(v.schemas[strings.TrimPrefix(ref, "#/components/schemas/")], val, path)
	}
	var out []issue
	for _, sub := range list(s["allOf"]) {
		out = append(out, v.validate(sub, val, path)...)
	}
	if branches := list(s["anyOf"]); len(branches) > 0 {
		var best []issue
		for i, b := range branches {
			is := v.validate(b, val, path)
			if i == 0 || countDisallowed(is) < countDisallowed(best) {
				best = is
			}
		}
		out = append(out, best...) // the closest branch: allowed deviations in it pass
	}
	if val == nil {
		if n, _ := s["nullable"].(bool); !n && s["type"] != nil {
			out = append(out, issue{path, "type", "null is not allowed"})
		}
		return out
	}
	switch s["type"] {
	case "object":
		m, ok := val.(map[string]any)
		if !ok {
			return append(out, issue{path, "type", fmt.Sprintf("want object, got %T", val)})
		}
		for _, r := range list(s["required"]) {
			if _, ok := m[r.(string)]; !ok {
				out = append(out, issue{join(path, r.(string)), "required", "missing"})
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, x := range m {
			if p, ok := props[k]; ok {
				out = append(out, v.validate(p, x, join(path, k))...)
			}
		}
	case "array":
		a, ok := val.([]any)
		if !ok {
			return append(out, issue{path, "type", fmt.Sprintf("want array, got %T", val)})
		}
		for i, x := range a {
			out = append(out, v.validate(s["items"], x, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case "string":
		str, ok := val.(string)
		if !ok {
			return append(out, issue{path, "type", fmt.Sprintf("want string, got %T", val)})
		}
		if min, ok := s["minLength"].(int); ok && len([]rune(str)) < min {
			out = append(out, issue{path, "minLength", str})
		}
		if max, ok := s["maxLength"].(int); ok && len([]rune(str)) > max {
			out = append(out, issue{path, "maxLength", str})
		}
		switch s["format"] {
		case "date-time":
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				out = append(out, issue{path, "format", "not a date-time: " + str})
			}
		case "uuid":
			if _, err := uuid.Parse(str); err != nil {
				out = append(out, issue{path, "format", "not a uuid: " + str})
			}
		case "email":
			if _, err := mail.ParseAddress(str); err != nil {
				out = append(out, issue{path, "format", "not an e-mail: " + str})
			}
		}
	case "integer", "number":
		f, ok := val.(float64)
		if !ok || (s["type"] == "integer" && f != math.Trunc(f)) {
			return append(out, issue{path, "type", fmt.Sprintf("want %s, got %v", s["type"], val)})
		}
		if min, ok := s["minimum"].(float64); ok && f < min {
			out = append(out, issue{path, "minimum", fmt.Sprint(f)})
		}
	case "boolean":
		if _, ok := val.(bool); !ok {
			return append(out, issue{path, "type", fmt.Sprintf("want boolean, got %T", val)})
		}
	}
	if enum := list(s["enum"]); len(enum) > 0 {
		want := make([]string, 0, len(enum))
		for _, e := range enum {
			want = append(want, fmt.Sprint(e))
		}
		if !slices.Contains(want, fmt.Sprint(val)) {
			out = append(out, issue{path, "enum", fmt.Sprintf("%v is not one of the vendor's values", val)})
		}
	}
	return out
}

func countDisallowed(is []issue) int {
	n := 0
	for _, x := range is {
		if _, ok := allowed(x); !ok {
			n++
		}
	}
	return n
}

func list(v any) []any { l, _ := v.([]any); return l }
