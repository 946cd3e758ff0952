package main

import (
	"context"
	"net/http"
	"net/url"
	"os"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/httpapi"
)

type openAPIOptions struct {
	Version string
	Format  string
	Output  string // a file; "-" is stdout
	URL     string // when set, the document of the sandbox there
}

// newOpenAPICmd prints the OpenAPI document. Without --url it is the
// document of this binary, built in-process (what its serve answers at
// /_sandbox/openapi.json): no server needed. With --url it is the document
// the sandbox there serves, which may be another release.
func newOpenAPICmd(deps *cliDeps, runF func(*openAPIOptions) error) *cobra.Command {
	o := &openAPIOptions{}
	cmd := &cobra.Command{
		Use:   "openapi",
		Short: "Print the OpenAPI 3.1 document of everything serve answers, for one API version",
		Long: "Print the OpenAPI 3.1 document of the merchant API, the client endpoints and /_sandbox, as this binary serves\n" +
			"them at /_sandbox/openapi.json and .yaml. No server is needed; --url fetches the document of a running sandbox instead.",
		Example: "  paysandbox openapi > openapi.json\n  paysandbox openapi --version 2.3 --format yaml --output openapi-2.3.yaml\n" +
			"  paysandbox openapi --url http://localhost:8080",
		Args: noArgs,
		PreRunE: func(*cobra.Command, []string) error {
			if _, ok := simulator.ParseAPIVersion(o.Version); !ok {
				return usageErrorf("--version %q is not %s", o.Version, simulator.AcceptedAPIVersions())
			}
			if o.Format != httpapi.OpenAPIJSON && o.Format != httpapi.OpenAPIYAML {
				return usageErrorf("--format %q is not json or yaml", o.Format)
			}
			if o.URL != "" {
				if u, err := url2(o.URL); err != nil || u.Host == "" {
					return usageErrorf("--url %q is not an http(s) URL like http://localhost:8080", o.URL)
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			doc, err := o.document(ctxOf(cmd), deps)
			if err != nil {
				return err
			}
			if o.Output == "" || o.Output == "-" {
				_, err := cmd.OutOrStdout().Write(doc)
				return err
			}
			if err := os.WriteFile(o.Output, doc, 0o644); err != nil {
				return &checkError{id: "WriteError", msg: err.Error()}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Version, "version", string(simulator.CurrentAPIVersion), "the API version the document describes: "+simulator.AcceptedAPIVersions())
	fs.StringVar(&o.Format, "format", httpapi.OpenAPIJSON, "json | yaml")
	fs.StringVarP(&o.Output, "output", "o", "-", "the file to write (- is stdout)")
	fs.StringVar(&o.URL, "url", "", "fetch the document from the sandbox at this base URL instead of this binary's own")
	return cmd
}

// document is this binary's document, or the one the sandbox at --url serves.
func (o *openAPIOptions) document(ctx context.Context, deps *cliDeps) ([]byte, error) {
	if o.URL == "" {
		return httpapi.OpenAPIDocument(simulator.APIVersion(o.Version), o.Format, currentBuild().Version)
	}
	c := &clientOptions{URL: o.URL, deps: deps} // the route needs no key
	return c.do(ctx, request{Method: http.MethodGet, Path: httpapi.OpenAPIPath + "." + o.Format, Query: url.Values{"version": {o.Version}}})
}
