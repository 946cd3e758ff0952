package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Tenant snapshots: `tenants export`, `tenants import` and serve's --seed.

type tenantsExportOptions struct {
	Client         clientOptions
	IncludeSecrets bool
	// File is where the snapshot goes ("-": stdout); a name ending in .gz
	// is written gzip-compressed (imports read both).
	File string
}

func newTenantsExportCmd(deps *cliDeps, runF func(*tenantsExportOptions) error) *cobra.Command {
	o := &tenantsExportOptions{}
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the tenant whole (data, clock, scenarios, webhooks, journal) as one snapshot file",
		Example: "  paysandbox tenants export --output ci-tenant.json\n" +
			"  paysandbox tenants export --include-secrets --output demo.json.gz",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.IncludeSecrets {
				q.Set("includeSecrets", "true")
			}
			raw, err := o.Client.do(ctxOf(cmd), request{Method: "GET", Path: "/_sandbox/snapshot", Query: q})
			if err != nil {
				return err
			}
			if o.File == "-" {
				_, err := deps.Out.Write(raw)
				return err
			}
			if strings.HasSuffix(o.File, ".gz") {
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				if _, err := zw.Write(raw); err != nil {
					return err
				}
				if err := zw.Close(); err != nil {
					return err
				}
				raw = buf.Bytes()
			}
			if err := os.WriteFile(o.File, raw, 0o600); err != nil { // it may carry secrets
				return &checkError{id: "WriteError", msg: err.Error()}
			}
			_, err = fmt.Fprintf(deps.Out, "snapshot written to %s (%d bytes)\n", o.File, len(raw))
			return err
		},
	}
	addConnectionFlags(cmd, &o.Client, deps)
	cmd.Flags().BoolVar(&o.IncludeSecrets, "include-secrets", false, "include the tenant's API keys and signing secrets (needs a key holding every scope; an import then keeps them)")
	cmd.Flags().StringVarP(&o.File, "output", "o", "-", "file to write (- is stdout; a name ending in .gz is gzip-compressed)")
	return cmd
}

type tenantsImportOptions struct {
	simpleOptions
	AdminKey string
	// File is the snapshot ("-": stdin).
	File string
}

func newTenantsImportCmd(deps *cliDeps, runF func(*tenantsImportOptions) error) *cobra.Command {
	o := &tenantsImportOptions{}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Load a snapshot (tenants export) into a new tenant (admin key)",
		Example: "  paysandbox tenants import ci-tenant.json\n" +
			"  set -a; eval \"$(paysandbox tenants import ci-tenant.json --output env)\"; set +a",
		Args: exactArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			if runF != nil {
				return runF(o)
			}
			b, err := readFileArg(cmd, o.File)
			if err != nil {
				return err
			}
			raw, err := o.Client.do(ctxOf(cmd), request{Method: "POST", Path: "/_sandbox/tenants", Body: b, Headers: adminHeaders(o.AdminKey), Warn: true})
			if err != nil {
				return err
			}
			if o.Client.Output == "env" {
				return o.Client.renderEnv(raw)
			}
			return o.Client.render(raw, objectTable(true, "tenantId", "apiKey", "signingSecret", "expiresAt"))
		},
	}
	addClientFlags(cmd, &o.Client, deps, "table", "json", "env")
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}
