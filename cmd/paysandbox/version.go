package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what `version` reports: the stamped version, commit and date,
// with the VCS data Go embeds when nothing was stamped.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Modified bool   `json:"modified,omitempty"`
}

func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "unknown" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Date == "unknown" {
					b.Date = s.Value
				}
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
		if b.Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version // go install ...@v1.2.3
		}
	}
	return b
}

func versionString() string {
	b := currentBuild()
	return fmt.Sprintf("paysandbox %s (commit %s, built %s, %s %s)", b.Version, b.Commit, b.Date, b.Go, b.Platform)
}

type versionOptions struct{ Output string }

func newVersionCmd() *cobra.Command {
	o := &versionOptions{}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version and build info",
		Example: "  paysandbox version\n  paysandbox version --output json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch o.Output {
			case "json":
				b, _ := json.MarshalIndent(currentBuild(), "", "  ")
				_, err := fmt.Fprintln(cmd.OutOrStdout(), string(b))
				return err
			case "table":
				_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
				return err
			}
			return usageErrorf("--output %q is not table or json", o.Output)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "table", "output format: table | json")
	return cmd
}
