package httpapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

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

// openAPIDir holds the generated documents, openapi-<version>.<format>.gz.
//
//go:embed openapi/*.gz
var openAPIDir embed.FS

// openAPIFile is the generated document's file of version v in format.
func openAPIFile(v simulator.APIVersion, format string) string {
	return "openapi/openapi-" + string(v) + "." + format + ".gz"
}

// generatedOpenAPI is the generated document of version v in format, as
// the builder wrote it.
func generatedOpenAPI(v simulator.APIVersion, format string) ([]byte, error) {
	if !slices.Contains(simulator.APIVersions, v) {
		return nil, fmt.Errorf("API version %q is not %s", v, simulator.AcceptedAPIVersions())
	}
	if format != OpenAPIJSON && format != OpenAPIYAML {
		return nil, fmt.Errorf("format %q is not %s or %s", format, OpenAPIJSON, OpenAPIYAML)
	}
	f, err := openAPIDir.Open(openAPIFile(v, format))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
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
