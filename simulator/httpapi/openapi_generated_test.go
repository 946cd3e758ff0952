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
// makes of the current tables, for every version, and each format is
// rendered from them as the builder renders it; with -update-openapi (go
// generate ./simulator/httpapi) it rewrites those that differ.
func TestOpenAPIGenerated(t *testing.T) {
	var want openAPIBundle
	built := map[simulator.APIVersion]openAPIBytes{}
	for _, v := range simulator.APIVersions {
		r, err := renderOpenAPI(BuildOpenAPI(v))
		require.NoError(t, err)
		built[v] = r
		require.NoError(t, want.addDoc(string(v), r.raw))
		doc, err := want.doc(string(v))
		require.NoError(t, err)
		require.True(t, bytes.Equal(r.raw, doc), "version %s's document is put together from the bundle as it was cut", v)
	}
	if *updateOpenAPI {
		got, err := embeddedOpenAPI()
		if err == nil && sameBundle(t, got, &want) {
			return // gzip's bytes may differ between Go releases: keep an equal file
		}
		b, err := json.Marshal(&want)
		require.NoError(t, err)
		writeGzip(t, openAPIFile, b)
		return
	}
	got, err := embeddedOpenAPI()
	require.NoError(t, err, "run: go generate ./simulator/httpapi")
	for _, v := range simulator.APIVersions {
		doc, err := got.doc(string(v))
		require.NoError(t, err, "run: go generate ./simulator/httpapi")
		assert.True(t, bytes.Equal(built[v].raw, doc), "the embedded document of %s is stale: run go generate ./simulator/httpapi", v)
		for format, want := range map[string][]byte{OpenAPIJSON: built[v].json, OpenAPIYAML: built[v].yaml} {
			served, err := generatedOpenAPI(v, format)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, served), "version %s's %s is rendered as the builder renders it", v, format)
		}
	}
}

// sameBundle reports whether a and b hold the same documents.
func sameBundle(t *testing.T, a, b *openAPIBundle) bool {
	if len(a.Docs) != len(b.Docs) {
		return false
	}
	for v := range b.Docs {
		x, err := a.doc(v)
		if err != nil {
			return false
		}
		y, err := b.doc(v)
		require.NoError(t, err)
		if !bytes.Equal(x, y) {
			return false
		}
	}
	return true
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
