package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
)

type tenantsCreateOptions struct {
	simpleOptions
	AdminKey   string
	TTL        time.Duration
	Scopes     []string
	WebhookURL string
	// WebhookVersion is the tenant's webhook version ("": the server's default).
	WebhookVersion string
}

func adminKeyFlag(cmd *cobra.Command, p *string, deps *cliDeps) {
	cmd.Flags().StringVar(p, "admin-key", deps.Getenv("PAYSANDBOX_ADMIN_KEY"), "the sandbox's admin key, when it has one (env PAYSANDBOX_ADMIN_KEY)")
	hideEnvSecret(cmd, "admin-key", "PAYSANDBOX_ADMIN_KEY", deps.Getenv)
}

func adminHeaders(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"X-Admin-Key": key}
}

func newTenantsCreateCmd(deps *cliDeps, runF func(*tenantsCreateOptions) error) *cobra.Command {
	o := &tenantsCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a tenant with its own data, clock, key and signing secret",
		Example: "  paysandbox tenants create --ttl 2h\n" +
			"  set -a; eval \"$(paysandbox tenants create --ttl 1h --output env)\"; set +a   # PAYSANDBOX_API_KEY for the next commands\n" +
			"  paysandbox tenants create --output env >> \"$GITHUB_ENV\"",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("ttl") && o.TTL <= 0 {
				return usageErrorf("--ttl must be a positive duration like 2h")
			}
			if o.WebhookVersion != "" && simulator.CheckAPIVersion(o.WebhookVersion) != nil {
				return usageErrorf("--webhook-version %q is not one of %s", o.WebhookVersion, strings.Join(simulator.APIVersionNames(), ", "))
			}
			if runF != nil {
				return runF(o)
			}
			body := map[string]any{}
			if o.TTL > 0 {
				body["ttl"] = o.TTL.String()
			}
			if cmd.Flags().Changed("scopes") {
				body["scopes"] = append([]string{}, o.Scopes...)
			}
			if o.WebhookURL != "" {
				body["webhookUrl"] = o.WebhookURL
			}
			if o.WebhookVersion != "" {
				body["webhookVersion"] = o.WebhookVersion
			}
			raw, err := o.Client.do(ctxOf(cmd), request{Method: "POST", Path: "/_sandbox/tenants", Body: body, Headers: adminHeaders(o.AdminKey)})
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
	cmd.Flags().DurationVar(&o.TTL, "ttl", 0, "delete the tenant and its data after this long on the wall clock (advancing the tenant's clock never expires it), e.g. 2h")
	cmd.Flags().StringSliceVar(&o.Scopes, "scopes", nil, "the key's scopes, comma list (default every scope)")
	cmd.Flags().StringVar(&o.WebhookURL, "webhook-url", "", "the tenant's webhook endpoint")
	cmd.Flags().StringVar(&o.WebhookVersion, "webhook-version", "", "the version of the tenant's webhook bodies: 2.1, 2.2, 2.3 or 2.4 (default: the server's, 2.4 unless serve sets webhook_version)")
	return cmd
}

// renderEnv prints a new tenant as KEY=value lines, for eval, $GITHUB_ENV or
// docker --env-file.
func (o *clientOptions) renderEnv(raw []byte) error {
	var t struct {
		TenantID, APIKey, SigningSecret string
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return &checkError{id: "BadAnswer", msg: "the sandbox answered something that is not a tenant"}
	}
	_, err := fmt.Fprintf(o.deps.Out, "PAYSANDBOX_URL=%s\nPAYSANDBOX_API_KEY=%s\nPAYSANDBOX_TENANT_ID=%s\nPAYSANDBOX_SIGNING_SECRET=%s\n",
		o.URL, t.APIKey, t.TenantID, t.SigningSecret)
	return err
}

type tenantsAdminOptions struct {
	simpleOptions
	AdminKey string
}

func newTenantsListCmd(deps *cliDeps, runF func(*tenantsAdminOptions) error) *cobra.Command {
	o := &tenantsAdminOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List every tenant (admin key)",
		Example: "  paysandbox tenants list --admin-key \"$PAYSANDBOX_ADMIN_KEY\"",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/tenants", Headers: adminHeaders(o.AdminKey)},
				listTable("tenantId", "createdAt", "expiresAt", "webhookUrl", "fromConfig", "webhookVersion"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}

func newTenantsDeleteCmd(deps *cliDeps, runF func(*tenantsAdminOptions) error) *cobra.Command {
	o := &tenantsAdminOptions{}
	cmd := &cobra.Command{
		Use:     "delete TENANT_ID",
		Short:   "Delete a tenant and all its data (admin key)",
		Example: "  paysandbox tenants delete t_0123456789abcdef",
		Args:    exactArgs("TENANT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "DELETE", Path: "/_sandbox/tenants/" + url.PathEscape(o.ID), Headers: adminHeaders(o.AdminKey)},
				objectTable(true, "tenantId", "status"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}

func newTenantsAcceptLossCmd(deps *cliDeps, runF func(*tenantsAdminOptions) error) *cobra.Command {
	o := &tenantsAdminOptions{}
	cmd := &cobra.Command{
		Use:   "accept-loss TENANT_ID",
		Short: "Open a tenant whose file is missing or short with what its file has (admin key)",
		Long: "A tenant known to have committed data whose file is missing, or ends before its last fsynced commit,\n" +
			"answers 503 TenantUnavailable instead of opening empty or shorter. Restore the file from a backup,\n" +
			"or accept the loss: the tenant then opens with what its file has (empty when it is missing).",
		Example: "  paysandbox tenants accept-loss t_0123456789abcdef --admin-key \"$PAYSANDBOX_ADMIN_KEY\"",
		Args:    exactArgs("TENANT_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/tenants/" + url.PathEscape(o.ID) + "/accept-loss", Headers: adminHeaders(o.AdminKey)},
				objectTable(true, "tenantId", "lost"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	adminKeyFlag(cmd, &o.AdminKey, deps)
	return cmd
}
