package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/paysandbox/paysandbox/simulator"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite the embedded OpenAPI documents (openapi/) from the builder")

// TestOpenAPIGenerated: the documents the server embeds are what the builder
// makes of the current tables, for every version and format; with
// -update-openapi (go generate ./simulator/httpapi) it rewrites those that
// differ.
func TestOpenAPIGenerated(t *testing.T) {
	for _, v := range simulator.APIVersions {
		built, err := renderOpenAPI(BuildOpenAPI(v))
		require.NoError(t, err)
		for format, want := range map[string][]byte{OpenAPIJSON: built.json, OpenAPIYAML: built.yaml} {
			got, err := generatedOpenAPI(v, format)
			if *updateOpenAPI {
				if err == nil && bytes.Equal(got, want) {
					continue // gzip's bytes may differ between Go releases: keep the file
				}
				writeGzip(t, openAPIFile(v, format), want)
				continue
			}
			require.NoError(t, err, "run: go generate ./simulator/httpapi")
			assert.True(t, bytes.Equal(want, got), "the embedded %s is stale: run go generate ./simulator/httpapi", openAPIFile(v, format))
		}
	}
}

// writeGzip writes b gzipped to name (relative to the package), with no
// name or time in the header, so that equal documents give equal files.
func writeGzip(t *testing.T, name string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	require.NoError(t, os.WriteFile(name, buf.Bytes(), 0o644))
}

// TestOpenAPIStamp: the served document is the generated one with
// info.x-paysandbox-version set to the binary's version (escaped as each
// format needs), and nothing else changed; info.version stays the API
// version.
func TestOpenAPIStamp(t *testing.T) {
	for _, build := range []string{"dev", "1.2.3", "2.4", `v1 "quoted" #x: y`} {
		for _, v := range simulator.APIVersions {
			for _, format := range []string{OpenAPIJSON, OpenAPIYAML} {
				t.Run(build+"/"+string(v)+"/"+format, func(t *testing.T) {
					gen, err := generatedOpenAPI(v, format)
					require.NoError(t, err)
					got, err := OpenAPIDocument(v, format, build)
					require.NoError(t, err)
					var doc, want map[string]any
					if format == OpenAPIJSON {
						require.NoError(t, json.Unmarshal(got, &doc))
						require.NoError(t, json.Unmarshal(gen, &want))
					} else {
						require.NoError(t, yaml.Unmarshal(got, &doc))
						require.NoError(t, yaml.Unmarshal(gen, &want))
					}
					info := doc["info"].(map[string]any)
					assert.Equal(t, build, info["x-paysandbox-version"])
					assert.Equal(t, string(v), info["version"])
					delete(info, "x-paysandbox-version")
					assert.Equal(t, want, doc, "only x-paysandbox-version is added")
					assert.Equal(t, bytes.Count(gen, []byte("\n"))+1, bytes.Count(got, []byte("\n")), "one line added")
				})
			}
		}
	}
	_, err := OpenAPIDocument("3.0", OpenAPIJSON, "dev")
	assert.Error(t, err)
	_, err = OpenAPIDocument(simulator.V24, "xml", "dev")
	assert.Error(t, err)
}
