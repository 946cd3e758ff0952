package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
)

func newClockShowCmd(deps *cliDeps, runF func(*simpleOptions) error) *cobra.Command {
	o := &simpleOptions{}
	cmd := &cobra.Command{
		Use:     "show",
		Short:   "Show the tenant's clock",
		Example: "  paysandbox clock show",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "GET", Path: "/_sandbox/clock"}, objectTable(true, "now"))
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

type clockAdvanceOptions struct {
	simpleOptions
	Duration time.Duration
}

func newClockAdvanceCmd(deps *cliDeps, runF func(*clockAdvanceOptions) error) *cobra.Command {
	o := &clockAdvanceOptions{}
	cmd := &cobra.Command{
		Use:   "advance DURATION",
		Short: "Move the tenant's clock forward and run everything due (expiries, settlements, webhook retries)",
		Long: "Move the tenant's clock forward and run everything due on it: client-token and attempt expiries,\n" +
			"scheduled authorizations, settlements, disputes and webhook retries. The tenant's own ttl runs on\n" +
			"the wall clock, so advancing by days never expires the tenant.",
		Example: "  paysandbox clock advance 15m\n" +
			"  paysandbox clock advance 24h --output json",
		Args: exactArgs("DURATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := time.ParseDuration(args[0])
			if err != nil || d <= 0 {
				return usageErrorf("DURATION %q is not a positive duration like 90s, 15m or 24h", args[0])
			}
			o.Duration = d
			if runF != nil {
				return runF(o)
			}
			return simpleRun(ctxOf(cmd), &o.Client, request{Method: "POST", Path: "/_sandbox/clock/advance", Body: map[string]string{"duration": d.String()}},
				func(w io.Writer, v map[string]any) error {
					if err := objectTable(false, "now")(w, v); err != nil {
						return err
					}
					fired, _ := v["fired"].([]any)
					if len(fired) == 0 {
						return nil
					}
					fmt.Fprintln(w)
					if err := listTable("kind", "at", "paymentId", "attemptId", "eventId")(w, map[string]any{"data": fired}); err != nil {
						return err
					}
					if n := countPending(fired); n > 0 {
						fmt.Fprintf(w, "\n%d webhook attempt(s) were still in flight when the advance stopped waiting for them (serve --advance-wait);\n"+
							"they finish on their own: paysandbox webhooks list shows their outcome.\n", n)
					}
					return nil
				})
		},
	}
	addClientFlags(cmd, &o.Client, deps)
	return cmd
}

// countPending counts the items of a clock advance's fired list that are
// webhook attempts still in flight ("pending": true).
func countPending(fired []any) int {
	n := 0
	for _, f := range fired {
		if m, _ := f.(map[string]any); m["pending"] == true {
			n++
		}
	}
	return n
}
