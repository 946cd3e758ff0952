package main

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
)

type healthcheckOptions struct {
	URL     string
	Timeout time.Duration
}

// newHealthcheckCmd GETs /healthz and exits non-zero unless it answers 200
// (the Docker HEALTHCHECK: the image has no shell or curl).
func newHealthcheckCmd(runF func(*healthcheckOptions) error) *cobra.Command {
	opts := &healthcheckOptions{}
	cmd := &cobra.Command{
		Use:     "healthcheck",
		Short:   "Exit 0 when the sandbox at --url answers /healthz with 200",
		Example: "  paysandbox healthcheck --url http://localhost:8080",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			client := &http.Client{Timeout: opts.Timeout}
			resp, err := client.Get(opts.URL)
			if err != nil {
				return fmt.Errorf("healthcheck: %w", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("healthcheck: %s answered %d", opts.URL, resp.StatusCode)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok")
			return nil
		},
	}
	def := "http://127.0.0.1:8080/healthz"
	if env := os.Getenv("PAYSANDBOX_HEALTHCHECK_URL"); env != "" {
		def = env // lets a container that serves on another port keep the image's HEALTHCHECK
	}
	cmd.Flags().StringVar(&opts.URL, "url", def, "health endpoint to probe (env PAYSANDBOX_HEALTHCHECK_URL)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}
