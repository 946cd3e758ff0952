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

// currentBuild is this binary's build, the one source of the version that
// `version`, the serve banner, /healthz and the OpenAPI document's
// x-paysandbox-version show.
func currentBuild() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return resolveBuild(version, commit, date, info)
}

// resolveBuild is the build of a binary stamped with version, commit and
// date (the release build's -X flags; "dev" and "unknown" when none were
// given) whose embedded build information is info (nil when it has none).
// A stamp wins; otherwise the commit and date are the VCS data `go build`
// records in a checkout, and the version is the main module's (moduleVersion).
func resolveBuild(version, commit, date string, info *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info == nil {
		return b
	}
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
	if b.Version == "dev" {
		b.Version = moduleVersion(info.Main.Version)
	}
	return b
}

// moduleVersion is the version to report for a binary the go command
// built without a stamp, given the main module's version it recorded:
// the module version itself for `go install MODULE/cmd/paysandbox@v0.1.0`
// (v0.1.0) and for a build in a checkout with VCS stamping (the tag
// at HEAD, or a pseudo-version after it, with +dirty for local changes);
// "dev" when it recorded none ("(devel)", or empty without build info).
func moduleVersion(main string) string {
	if main == "" || main == "(devel)" {
		return "dev"
	}
	return main
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
