package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
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
	// AllowSkipped: a snapshot that left records out (its skipped member:
	// records that do not decode, and those referring to them) is a success.
	AllowSkipped bool
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
			skipped := skippedError(raw, o.AllowSkipped, deps)
			if o.File == "-" {
				_, err := deps.Out.Write(raw)
				return errors.Join(err, skipped)
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
			return errors.Join(err, skipped)
		},
	}
	addConnectionFlags(cmd, &o.Client, deps)
	cmd.Flags().BoolVar(&o.IncludeSecrets, "include-secrets", false, "include the tenant's API keys and signing secrets (needs a key holding every scope; an import then keeps them)")
	cmd.Flags().BoolVar(&o.AllowSkipped, "allow-skipped", false, "exit 0 even when the snapshot left out records that cannot be read (listed in its skipped member, and on stderr)")
	cmd.Flags().StringVarP(&o.File, "output", "o", "-", "file to write (- is stdout; a name ending in .gz is gzip-compressed)")
	return cmd
}

// skippedError names on stderr the records snapshot raw left out (its
// skipped member) and answers the failed check they make, nil when none
// were left out or allow is set. The snapshot is written either way.
func skippedError(raw []byte, allow bool, deps *cliDeps) error {
	var doc struct {
		Skipped []struct {
			Kind, ID, Key, Reason string
		} `json:"skipped"`
	}
	if json.Unmarshal(raw, &doc) != nil || len(doc.Skipped) == 0 {
		return nil
	}
	for _, s := range doc.Skipped {
		name := s.Kind + " " + s.ID
		if s.Key != "" {
			name += " (" + s.Key + ")"
		}
		fmt.Fprintf(deps.Err, "skipped: %s: %s\n", name, s.Reason)
	}
	if allow {
		return nil
	}
	return &checkError{id: "RecordsSkipped", msg: fmt.Sprintf("the snapshot left out %d record(s) that cannot be read or refer to one (its skipped member lists them); it was written anyway: pass --allow-skipped to accept it", len(doc.Skipped))}
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
