package httpapi

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// vendorPaymentsFile is the vendor's payments OpenAPI, read at test time from
// ../shared/reference relative to the repository root (never copied into the
// repo).
const vendorPaymentsFile = "vendor-payments-openapi-v2.4.yml"

// findVendorFile looks for ../shared/reference/<file> from the repository
// root, then from its parents (worktrees live one level deeper).
func findVendorFile(file string) string {
	dir, err := filepath.Abs("../..") // the repository root
	if err != nil {
		return ""
	}
	for range 4 {
		p := filepath.Join(dir, "..", "shared", "reference", file)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// vendorDiff collects what the sandbox's merchant API serves that the
// vendor's document lacks.
type vendorDiff struct {
	found   map[OpenAPIExtra]bool
	visited map[string]bool
}

func (d *vendorDiff) add(kind, name string) {
	d.found[OpenAPIExtra{Kind: kind, Name: name}] = true
}

// vendorView is a vendor schema flattened: the properties, enum values and
// array items of it and of its allOf/oneOf/anyOf branches.
type vendorView struct {
	props map[string][]*openapi3.SchemaRef
	enum  []any
	items []*openapi3.SchemaRef
	open  bool // a branch is an object without properties: anything goes
}

func flatten(refs []*openapi3.SchemaRef) vendorView {
	v := vendorView{props: map[string][]*openapi3.SchemaRef{}}
	var walk func(r *openapi3.SchemaRef, depth int)
	walk = func(r *openapi3.SchemaRef, depth int) {
		if r == nil || r.Value == nil || depth > 8 {
			return
		}
		s := r.Value
		for n, p := range s.Properties {
			v.props[n] = append(v.props[n], p)
		}
		v.enum = append(v.enum, s.Enum...)
		if s.Items != nil {
			v.items = append(v.items, s.Items)
		}
		if s.Type.Is(openapi3.TypeObject) && len(s.Properties) == 0 && len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 {
			v.open = true
		}
		for _, b := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
			walk(b, depth+1)
		}
	}
	for _, r := range refs {
		walk(r, 0)
	}
	return v
}

// ourValue is the schema behind ref, and the component name it names ("" inline).
func ourValue(ref *openapi3.SchemaRef) (*openapi3.Schema, string) {
	name := ""
	if ref.Ref != "" {
		name = ref.Ref[strings.LastIndexByte(ref.Ref, '/')+1:]
	}
	s := ref.Value
	for _, b := range s.AnyOf { // orNullRef: the branch that is not null
		if b.Value != nil && !b.Value.Type.Is(openapi3.TypeNull) {
			return ourValue(b)
		}
	}
	return s, name
}

// compare walks our schema against the vendor's at where.
func (d *vendorDiff) compare(ours *openapi3.SchemaRef, theirs []*openapi3.SchemaRef, where string) {
	s, name := ourValue(ours)
	if name != "" {
		where = name
	}
	key := fmt.Sprintf("%s %p", where, s)
	for _, r := range theirs {
		key += fmt.Sprintf(" %p", r.Value)
	}
	if d.visited[key] {
		return
	}
	d.visited[key] = true
	v := flatten(theirs)
	if len(s.Enum) > 0 && len(v.enum) > 0 {
		for _, e := range s.Enum {
			if e != nil && !slices.Contains(v.enum, e) {
				d.add("enum", fmt.Sprintf("%s: %v", where, e))
			}
		}
	}
	if s.Items != nil && len(v.items) > 0 {
		d.compare(s.Items, v.items, where+"[]")
	}
	if len(s.Properties) == 0 || v.open {
		return
	}
	if len(v.props) == 0 {
		return // the vendor gives no shape here
	}
	for _, p := range slices.Sorted(maps.Keys(s.Properties)) {
		tp, ok := v.props[p]
		if !ok {
			d.add("field", where+"."+p)
			continue
		}
		d.compare(s.Properties[p], tp, where+"."+p)
	}
}

// normalPath names path parameters alike ({id}, {paymentMethodToken}: {}).
var pathParam = regexp.MustCompile(`\{[^}]*\}`)

func jsonSchemaOf(c openapi3.Content) *openapi3.SchemaRef {
	if mt := c.Get("application/json"); mt != nil {
		return mt.Schema
	}
	return nil
}

// merchantOp reports whether path is the merchant API (not /client, the
// control plane or health).
func merchantOp(path string) bool {
	return !strings.HasPrefix(path, "/_sandbox") && !strings.HasPrefix(path, "/client/") && path != "/healthz" && path != "/readyz"
}

// vendorExtras is what our merchant API serves that the vendor's document
// lacks: routes, fields and enum values of requests and 200 answers, and
// errorIds.
func vendorExtras(t *testing.T, ours, vendor *openapi3.T, vendorRaw []byte) map[OpenAPIExtra]bool {
	d := &vendorDiff{found: map[OpenAPIExtra]bool{}, visited: map[string]bool{}}
	vendorOps := map[string]*openapi3.Operation{}
	for p, item := range vendor.Paths.Map() {
		for m, op := range item.Operations() {
			vendorOps[m+" "+pathParam.ReplaceAllString(p, "{}")] = op
		}
	}
	vendorIDs := map[string]bool{}
	for _, m := range regexp.MustCompile(`errorId:\s*'?(\w+)`).FindAllSubmatch(vendorRaw, -1) {
		vendorIDs[string(m[1])] = true
	}
	require.NotEmpty(t, vendorIDs)
	for p, item := range ours.Paths.Map() {
		if !merchantOp(p) {
			continue
		}
		for m, op := range item.Operations() {
			route := m + " " + p
			vop, ok := vendorOps[m+" "+pathParam.ReplaceAllString(p, "{}")]
			if !ok {
				d.add("route", route)
			} else {
				if op.RequestBody != nil && vop.RequestBody != nil {
					if o, v := jsonSchemaOf(op.RequestBody.Value.Content), jsonSchemaOf(vop.RequestBody.Value.Content); o != nil && v != nil {
						d.compare(o, []*openapi3.SchemaRef{v}, "request")
					}
				}
				if r, vr := op.Responses.Value("200"), vop.Responses.Value("200"); r != nil && vr != nil {
					if o, v := jsonSchemaOf(r.Value.Content), jsonSchemaOf(vr.Value.Content); o != nil && v != nil {
						d.compare(o, []*openapi3.SchemaRef{v}, "answer")
					}
				}
			}
			for status, r := range op.Responses.Map() {
				if status == "default" || strings.HasPrefix(status, "2") {
					continue
				}
				s := jsonSchemaOf(r.Value.Content).Value
				ids := s.AllOf[1].Value.Properties["error"].Value.Properties["errorId"].Value.Enum
				for _, id := range ids {
					if !vendorIDs[id.(string)] {
						d.add("errorId", id.(string))
					}
				}
			}
		}
	}
	d.compare(ours.Components.Schemas["ErrorResponse"], []*openapi3.SchemaRef{vendor.Components.Schemas["400ErrorResponse"]}, "ErrorResponse")
	return d.found
}

// TestOpenAPIVendorExtras: a route, field, enum value or errorId of the
// merchant API that the vendor's document lacks fails unless OpenAPIExtras
// lists it with its reason; an entry nothing needs any more fails too.
func TestOpenAPIVendorExtras(t *testing.T) {
	path := findVendorFile(vendorPaymentsFile)
	if path == "" {
		t.Skipf("%s not found in ../shared/reference (relative to the repository root): comparison skipped", vendorPaymentsFile)
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	vendor, err := openapi3.NewLoader().LoadFromData(raw)
	require.NoError(t, err)
	found := map[OpenAPIExtra]bool{}
	for _, v := range simulator.APIVersions { // each version's document, so that an older version's own errorId counts
		for e := range vendorExtras(t, loadOpenAPI(t, v, OpenAPIJSON), vendor, raw) {
			found[e] = true
		}
	}
	listed := map[OpenAPIExtra]bool{}
	for _, e := range OpenAPIExtras {
		assert.NotEmpty(t, e.Reason, "%s %s has no reason", e.Kind, e.Name)
		k := OpenAPIExtra{Kind: e.Kind, Name: e.Name}
		assert.False(t, listed[k], "%s %s is listed twice", e.Kind, e.Name)
		listed[k] = true
		assert.True(t, found[k], "OpenAPIExtras lists %s %s, which the vendor's document has (or the sandbox no longer serves): remove it", e.Kind, e.Name)
	}
	var missing []string
	for e := range found {
		if !listed[e] {
			missing = append(missing, fmt.Sprintf("{Kind: %q, Name: %q, Reason: \"\"},", e.Kind, e.Name))
		}
	}
	slices.Sort(missing)
	assert.Empty(t, missing, "served but not in the vendor's document: add each to OpenAPIExtras with its reason:\n%s", strings.Join(missing, "\n"))
}

// openAPIExtrasMarker precedes the extras table in the docs page that
// prints it (OpenAPIExtrasMarkdown, verbatim).
const openAPIExtrasMarker = "<!-- openapi-extras -->"

// TestOpenAPIExtrasDoc: the docs page that carries openAPIExtrasMarker
// prints OpenAPIExtras as OpenAPIExtrasMarkdown renders it.
func TestOpenAPIExtrasDoc(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		_, after, ok := strings.Cut(string(b), openAPIExtrasMarker)
		if !ok {
			continue
		}
		assert.True(t, strings.HasPrefix(strings.TrimLeft(after, "\n"), OpenAPIExtrasMarkdown()),
			"%s: the table after %s is not OpenAPIExtrasMarkdown():\n%s", p, openAPIExtrasMarker, OpenAPIExtrasMarkdown())
		return
	}
	t.Skipf("no page under docs/ carries %s yet: the table to print is\n%s", openAPIExtrasMarker, OpenAPIExtrasMarkdown())
}
