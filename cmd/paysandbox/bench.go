package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/bench"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// newBenchCmd measures the sandbox under load (bench.Run), or its webhook
// deliveries with --webhooks (bench.Webhooks); its subcommands fill a db
// file (seed) and serve the ceiling (ceiling-server, hidden).
func newBenchCmd(runF func(*bench.Options) error) *cobra.Command {
	opts := &bench.Options{}
	cmd := &cobra.Command{
		Use:     "bench",
		Short:   "Measure the sandbox under load (per endpoint and per flow, server CPU per request), optionally as a ratio of a bare echo server",
		Example: "  paysandbox bench --flow read --compare-ceiling\n  paysandbox bench --flow write --compare-ceiling\n  paysandbox bench --flow auto --duration 10s --concurrency 16 --compare-ceiling\n  paysandbox bench --url http://localhost:8080 --flow read --output json\n  paysandbox bench --webhooks",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Webhooks {
				_, err := bench.Webhooks(cmd.Context(), bench.WebhookOptions{}, cmd.OutOrStdout())
				return err
			}
			return bench.Run(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.URL, "url", "", "sandbox to measure (default: paysandbox serve started as a process of its own on a db file in a temp dir; with --url its CPU time is unknown)")
	f.StringVar(&opts.AdminKey, "admin-key", "", "X-Admin-Key for creating the bench tenant, if the sandbox requires one")
	f.StringVar(&opts.Flow, "flow", "read", "load: "+bench.FlowNames())
	f.DurationVar(&opts.Duration, "duration", 10*time.Second, "how long the load runs against the server (and as long against the ceiling)")
	f.IntVar(&opts.Concurrency, "concurrency", 16, "concurrent clients")
	f.StringVar(&opts.Output, "output", "table", "report format: table | json")
	f.BoolVar(&opts.CompareCeiling, "compare-ceiling", false, "also run the load against a bare echo server (a process of its own answering with the sandbox's bodies), in turns with the sandbox, and print the ratios")
	f.StringVar(&opts.Fsync, "fsync", "everysecond", "fsync policy of the server bench starts: always | everysecond | never")
	f.StringVar(&opts.DB, "db", "", "db file of the server bench starts (default: a new file in a temp dir, removed after); :memory: keeps nothing")
	f.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of this process, the load generator (the server runs in a process of its own), over the measured load to this file")
	f.StringVar(&opts.MemProfile, "memprofile", "", "write a heap profile of this process, the load generator, after the measured run to this file")
	f.IntVar(&opts.ReadPayments, "read-payments", 3000, "payments the read and mixed flows create first and then read in turn")
	f.IntVar(&opts.Rounds, "rounds", 0, "with --compare-ceiling: the server and the ceiling take turns in this many slices of --duration each (0: slices of 250ms)")
	f.IntVar(&opts.Tokens, "tokens", 20000, "single-use tokens the write flow creates first, one per POST /payments")
	f.BoolVar(&opts.Webhooks, "webhooks", false, "measure webhook deliveries per second and their lag to a local receiver instead")
	cmd.AddCommand(newBenchSeedCmd(nil), newBenchCeilingCmd())
	return cmd
}

// newBenchSeedCmd fills a db file with stored checkouts (bench.Seed);
// --webhook-retention-count defaults to serve's bound.
func newBenchSeedCmd(runF func(*bench.SeedOptions) error) *cobra.Command {
	opts := &bench.SeedOptions{}
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Fill a db file with N stored checkouts (payment, session, token) for start-up and memory measurements",
		Example: "  paysandbox bench seed --payments 100000 --db /tmp/seeded.db\n" +
			"  paysandbox bench seed --tenants 1000 --payments 1000000 --db /tmp/many.db",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return bench.Seed(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.DB, "db", "", "db file to fill (created if missing; existing data stays)")
	cmd.Flags().IntVar(&opts.Payments, "payments", 100000, "checkouts to store, in all")
	cmd.Flags().IntVar(&opts.Tenants, "tenants", 1, "new tenants to spread the checkouts over, as evenly as can be")
	cmd.Flags().IntVar(&opts.Batch, "batch", 2000, "checkouts per store transaction")
	cmd.Flags().IntVar(&opts.KeepEvents, "webhook-retention-count", service.DefaultRetention.Keep,
		"store the webhook events a server with this retention bound keeps (0: every checkout's)")
	return cmd
}

// newBenchCeilingCmd serves the ceiling of `bench --compare-ceiling`
// (bench.RunCeiling) until SIGTERM or SIGINT.
func newBenchCeilingCmd() *cobra.Command {
	opts := &bench.CeilingOptions{}
	cmd := &cobra.Command{
		Use:    "ceiling-server",
		Short:  "The bare echo server bench --compare-ceiling starts as a process of its own",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return bench.RunCeiling(ctx, opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "listen address")
	cmd.Flags().StringVar(&opts.Bodies, "bodies", "", "JSON file: endpoint label (\"POST /payments\") -> answer body")
	return cmd
}
