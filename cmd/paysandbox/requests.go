package main

import (
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

type requestsOptions struct {
	simpleOptions
	Limit     int
	PaymentID string
	Status    string
	Since     string
}

func newRequestsCmd(deps *cliDeps, runF func(*requestsOptions) error) *cobra.Command {
	o := &requestsOptions{}
	cmd := &cobra.Command{
		Use:   "requests",
		Short: "Show the tenant's request journal, newest first, with hints",
		Example: "  paysandbox requests --limit 20\n" +
			"  paysandbox requests --payment xYz12AbC --status 4xx --output json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Limit < 0 {
				return usageErrorf("--limit must be positive")
			}
			if o.Since != "" {
				if _, err := time.Parse(time.RFC3339Nano, o.Since); err != nil {
					return usageErrorf("--since %q is not an RFC 3339 time like 2026-11-22T07:30:00Z", o.Since)
				}
			}
			if runF != nil {
				return runF(o)
			}
			q := url.Values{}
			if o.Limit > 0 {
				q.Set("limit", strconv.Itoa(o.Limit))
			}
			for k, v := range map[string]string{"paymentId": o.PaymentID, "status": o.Status, "since": o.Since} {
				if v != "" {
					q.Set(k, v)
				}
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/requests", Query: q}, journalTable)
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "at most this many entries")
	cmd.Flags().StringVar(&o.PaymentID, "payment", "", "only requests about this payment")
	cmd.Flags().StringVar(&o.Status, "status", "", "only this HTTP status (422) or class (4xx)")
	cmd.Flags().StringVar(&o.Since, "since", "", "only requests at or after this RFC 3339 time")
	return cmd
}

// journalTable shows one line per request, its hints below it.
func journalTable(w io.Writer, v map[string]any) error {
	rows, _ := v["data"].([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		if hs, ok := m["hints"].([]any); ok && len(hs) > 0 {
			kinds := make([]string, 0, len(hs))
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				kinds = append(kinds, cell(hm["kind"]))
			}
			m["hintKinds"] = strings.Join(kinds, ",")
		}
	}
	return listTable("at", "method", "path", "status", "latencyMs", "requestId", "hintKinds")(w, v)
}
