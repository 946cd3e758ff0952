package httpapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"

	"github.com/paysandbox/paysandbox/simulator"
)

// The OpenAPI document of everything the server answers, one per API
// version, is generated at build time by the builder in the package's tests
// (openapi_build_test.go, with kin-openapi) and embedded here, gzipped:
// kin-openapi is linked into no binary. TestOpenAPIGenerated fails when the
// embedded documents differ from what the builder makes.
//go:generate go test -run ^TestOpenAPIGenerated$ -update-openapi .

// OpenAPIPath is where the document is served, as OpenAPIPath+".json" and
// OpenAPIPath+".yaml" (no key needed).
const OpenAPIPath = simulator.OpenAPIPath

// OpenAPISpecVersion is the OpenAPI version the document is written in.
const OpenAPISpecVersion = "3.1.0"

// OpenAPI formats.
const (
	OpenAPIJSON = "json"
	OpenAPIYAML = "yaml"
)

// openAPIFile holds the generated documents of every version in one
// bundle (openAPIBundle), gzipped: each document's compact JSON, from
// which the served JSON (indented) and YAML (block style) are rendered
// byte for byte as the builder renders them (renderOpenAPI). One compact
// form shared by the versions instead of both rendered forms of each keeps
// 159 KB out of the binary.
const openAPIFile = "openapi/openapi.json.gz"

//go:embed openapi/openapi.json.gz
var openAPIDir embed.FS

// rendered keeps each document once rendered (at most one per version and
// format, made on first use): rendering the YAML takes a quarter of a
// second of CPU, which a CI job fetching it per test must not pay each time.
var rendered struct {
	sync.Mutex
	docs map[string][]byte
}

// generatedOpenAPI is the generated document of version v in format, as
// the builder renders it. The caller must not change it.
func generatedOpenAPI(v simulator.APIVersion, format string) ([]byte, error) {
	if !slices.Contains(simulator.APIVersions, v) {
		return nil, fmt.Errorf("API version %q is not %s", v, simulator.AcceptedAPIVersions())
	}
	if format != OpenAPIJSON && format != OpenAPIYAML {
		return nil, fmt.Errorf("format %q is not %s or %s", format, OpenAPIJSON, OpenAPIYAML)
	}
	key := string(v) + "." + format
	rendered.Lock()
	defer rendered.Unlock()
	if doc, ok := rendered.docs[key]; ok {
		return doc, nil
	}
	raw, err := compactOpenAPI(v)
	if err != nil {
		return nil, err
	}
	doc, err := renderOpenAPIAs(raw, format)
	if err != nil {
		return nil, err
	}
	if rendered.docs == nil {
		rendered.docs = map[string][]byte{}
	}
	rendered.docs[key] = doc
	return doc, nil
}

// embeddedOpenAPI is the embedded bundle.
func embeddedOpenAPI() (*openAPIBundle, error) {
	f, err := openAPIDir.Open(openAPIFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var b openAPIBundle
	if err := json.NewDecoder(zr).Decode(&b); err != nil {
		return nil, err
	}
	return &b, nil
}

// compactOpenAPI is the compact JSON of version v's generated document.
func compactOpenAPI(v simulator.APIVersion) ([]byte, error) {
	b, err := embeddedOpenAPI()
	if err != nil {
		return nil, err
	}
	return b.doc(string(v))
}

// renderOpenAPIAs renders a document's compact JSON in format: JSON
// indented by two spaces with a final newline, or YAML read from the same
// JSON as nodes (so in the same order) and written in block style.
func renderOpenAPIAs(raw []byte, format string) ([]byte, error) {
	var buf bytes.Buffer
	if format == OpenAPIJSON {
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return nil, err
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	}
	var node yaml.Node
	if err := yaml.Unmarshal(raw, &node); err != nil {
		return nil, err
	}
	blockStyle(&node, map[string]bool{})
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// blockStyle turns JSON's flow style into YAML's block style, keeping
// strings quoted where YAML would read them as something else. plain
// remembers which strings may go unquoted (a document repeats its keys
// thousands of times; asking YAML about each once makes rendering a
// document 10 times faster).
func blockStyle(n *yaml.Node, plain map[string]bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		n.Style = yaml.DoubleQuotedStyle
		if strings.Contains(n.Value, "\n") && !strings.ContainsAny(n.Value, "\t\r") {
			n.Style = yaml.LiteralStyle
		} else if !strings.ContainsAny(n.Value, "\n\"\\:#'&*!|>%@`{}[],") && n.Value != "" {
			ok, known := plain[n.Value]
			if !known {
				var probe any
				if yaml.Unmarshal([]byte(n.Value), &probe) == nil {
					s, isString := probe.(string)
					ok = isString && s == n.Value
				}
				plain[n.Value] = ok
			}
			if ok {
				n.Style = 0
			}
		}
	} else {
		n.Style = 0
	}
	for _, c := range n.Content {
		blockStyle(c, plain)
	}
}

// OpenAPIDocument is the document of version v in format (OpenAPIJSON or
// OpenAPIYAML) as a binary of version build serves it: the generated
// document with info.x-paysandbox-version set to build.
func OpenAPIDocument(v simulator.APIVersion, format, build string) ([]byte, error) {
	doc, err := generatedOpenAPI(v, format)
	if err != nil {
		return nil, err
	}
	return stampOpenAPI(doc, format, build)
}

// stampOpenAPI adds x-paysandbox-version: build as the last member of the
// document's info (after version, where the generated document's sorted
// keys put it); the other bytes stay as generated.
func stampOpenAPI(doc []byte, format, build string) ([]byte, error) {
	var at int
	var member []byte
	switch format {
	case OpenAPIJSON:
		// info is a member of the top object, indented by two spaces, its
		// members by four; the member goes before its closing brace.
		v, err := json.Marshal(build)
		if err != nil {
			return nil, err
		}
		member = append([]byte(",\n    \"x-paysandbox-version\": "), v...)
		start := bytes.Index(doc, []byte("\n  \"info\": {\n"))
		if start < 0 {
			return nil, errors.New("the generated OpenAPI document has no info")
		}
		end := bytes.Index(doc[start:], []byte("\n  }"))
		if end < 0 {
			return nil, errors.New("the generated OpenAPI document's info does not end")
		}
		at = start + end
	case OpenAPIYAML:
		// info is a top-level key, its members indented by two spaces; the
		// member goes before the next top-level key.
		v, err := yaml.Marshal(build)
		if err != nil {
			return nil, err
		}
		member = append([]byte("  x-paysandbox-version: "), v...)
		start := bytes.Index(doc, []byte("\ninfo:\n"))
		if start < 0 {
			return nil, errors.New("the generated OpenAPI document has no info")
		}
		at = start + len("\ninfo:\n")
		for at < len(doc) && (doc[at] == ' ' || doc[at] == '\n') { // a member's line, or an empty line of a block scalar
			nl := bytes.IndexByte(doc[at:], '\n')
			if nl < 0 {
				return nil, errors.New("the generated OpenAPI document's info does not end")
			}
			at += nl + 1
		}
	default:
		return nil, fmt.Errorf("format %q is not %s or %s", format, OpenAPIJSON, OpenAPIYAML)
	}
	out := make([]byte, 0, len(doc)+len(member))
	out = append(out, doc[:at]...)
	out = append(out, member...)
	return append(out, doc[at:]...), nil
}

// openAPIHandler serves the document in format; ?version= picks the API
// version (default the current one).
func (s *Server) openAPIHandler(format string) echo.HandlerFunc {
	media := echo.MIMEApplicationJSON
	if format == OpenAPIYAML {
		media = "application/yaml"
	}
	return func(c echo.Context) error {
		v := simulator.CurrentAPIVersion
		if q := c.QueryParam("version"); q != "" {
			pv, ok := simulator.ParseAPIVersion(q)
			if !ok {
				return simulator.Errorf(simulator.CodeUnsupportedAPIVersion, "The version parameter must be %s", simulator.AcceptedAPIVersions()).
					WithRecovery("Leave it out for " + string(simulator.CurrentAPIVersion) + ", or name a version served.")
			}
			v = pv
		}
		b, err := OpenAPIDocument(v, format, s.opt.Version)
		if err != nil {
			return err
		}
		return c.Blob(http.StatusOK, media, b)
	}
}
