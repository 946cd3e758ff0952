package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/paysandbox/paysandbox/simulator"
)

// The client plumbing every client command shares (docs/cli.md):
// --url, --api-key, --output; one JSON document per command on stdout and
// nothing else; errors on stderr as "Error: <errorId>: <description>"; exit
// 0 on success, 1 on an API error or a failed check, 2 on a usage error.

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // an API error, a failed check, the server unreachable
	exitUsage = 2 // bad flags or arguments
)

// defaultURL is where client commands look for the sandbox.
const defaultURL = "http://localhost:8080"

// cliDeps is what the root gives every command: its streams, the
// environment and the HTTP client (tests inject them).
type cliDeps struct {
	Out, Err io.Writer
	Getenv   func(string) string
	HTTP     *http.Client
}

// defaultDeps are the real streams, environment and HTTP client. The
// client waits longer than serve's default request timeout (90s), so a
// request the sandbox holds that long gets the sandbox's 504, which names
// its payment, rather than a client-side timeout.
func defaultDeps(out, errOut io.Writer) *cliDeps {
	return &cliDeps{Out: out, Err: errOut, Getenv: os.Getenv, HTTP: &http.Client{Timeout: 2 * time.Minute}}
}

// defaultAPIVersion is the X-API-VERSION client commands send to the
// merchant and client APIs unless --api-version says otherwise.
const defaultAPIVersion = "2.4"

// clientOptions are the flags every client command takes.
type clientOptions struct {
	URL        string
	APIKey     string
	APIVersion string // X-API-VERSION on the merchant and client APIs (not /_sandbox)
	Output     string // table | json (tenants create also: env)
	// VersionSet: the user chose the version (--api-version or
	// PAYSANDBOX_API_VERSION), as a merchant pins one; otherwise a payment
	// is shown in the version it was made with.
	VersionSet bool

	deps *cliDeps
}

// addClientFlags declares --url, --api-key, --api-version and --output with
// their environment defaults (PAYSANDBOX_URL, PAYSANDBOX_API_KEY,
// PAYSANDBOX_API_VERSION).
func addClientFlags(cmd *cobra.Command, o *clientOptions, deps *cliDeps, outputs ...string) {
	if len(outputs) == 0 {
		outputs = []string{"table", "json"}
	}
	addConnectionFlags(cmd, o, deps)
	cmd.Flags().StringVarP(&o.Output, "output", "o", "table", "output format: "+strings.Join(outputs, " | "))
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if !contains(outputs, o.Output) {
			return usageErrorf("--output %q is not %s", o.Output, strings.Join(outputs, " or "))
		}
		return prev(c, args)
	}
}

// addConnectionFlags declares --url, --api-key and --api-version (a
// command whose --output is a file declares its own).
func addConnectionFlags(cmd *cobra.Command, o *clientOptions, deps *cliDeps) {
	o.deps = deps
	url := deps.Getenv("PAYSANDBOX_URL")
	if url == "" {
		url = defaultURL
	}
	key := deps.Getenv("PAYSANDBOX_API_KEY")
	if key == "" {
		key = simulator.DefaultAPIKey
	}
	version := deps.Getenv("PAYSANDBOX_API_VERSION")
	if version == "" {
		version = defaultAPIVersion
	}
	fs := cmd.Flags()
	fs.StringVar(&o.URL, "url", url, "base URL of the sandbox (env PAYSANDBOX_URL)")
	fs.StringVar(&o.APIKey, "api-key", key, "the tenant's API key (env PAYSANDBOX_API_KEY; default the default tenant's)")
	hideEnvSecret(cmd, "api-key", "PAYSANDBOX_API_KEY", deps.Getenv)
	fs.StringVar(&o.APIVersion, "api-version", version, "X-API-VERSION sent to the merchant and client APIs, e.g. 2.3 (env PAYSANDBOX_API_VERSION)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if u, err := url2(o.URL); err != nil || u.Host == "" {
			return usageErrorf("--url %q is not an http(s) URL like http://localhost:8080", o.URL)
		}
		// Which versions exist is the server's to say (a 400 names them);
		// only a value no header can carry is refused here.
		if strings.TrimSpace(o.APIVersion) == "" || strings.ContainsAny(o.APIVersion, "\r\n") {
			return usageErrorf("--api-version %q is not a version like 2.4", o.APIVersion)
		}
		o.VersionSet = deps.Getenv("PAYSANDBOX_API_VERSION") != "" || c.Flags().Changed("api-version")
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// hideEnvSecret keeps a secret out of --help: when flag name's default is
// the value of the environment variable env, help shows (set) in its place.
func hideEnvSecret(cmd *cobra.Command, name, env string, getenv func(string) string) {
	if getenv(env) != "" {
		cmd.Flags().Lookup(name).DefValue = "(set)"
	}
}

func url2(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err == nil && u.Scheme != "http" && u.Scheme != "https" {
		err = errors.New("not http(s)")
	}
	return u, err
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// usageError is a bad flag or argument: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// apiError is an error answer of the sandbox, printed as errorId: description.
type apiError struct {
	Status      int
	ErrorID     string
	Description string
	Body        []byte
}

func (e *apiError) Error() string { return e.ErrorID + ": " + e.Description }

// checkError is a check that did not pass (no answer from the API).
type checkError struct{ id, msg string }

func (e *checkError) Error() string { return e.id + ": " + e.msg }

// exactArgs is cobra.ExactArgs as a usage error naming what is missing.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return usageErrorf("%s takes %d argument(s): %s (got %d)", cmd.CommandPath(), len(names), strings.Join(names, " "), len(args))
		}
		for i, a := range args {
			if strings.TrimSpace(a) == "" {
				return usageErrorf("%s: %s must not be empty", cmd.CommandPath(), names[i])
			}
		}
		return nil
	}
}

// noArgs is cobra.NoArgs as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments (got %q)", cmd.CommandPath(), args[0])
	}
	return nil
}

// newParentCmd is a command that only groups others: with no subcommand it
// prints its help; an unknown one is a usage error.
func newParentCmd(use, short, example string, children ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short, Example: example,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(children...)
	return cmd
}

// request is one call to the sandbox.
type request struct {
	Method  string
	Path    string // escaped path, e.g. "/payments/" + url.PathEscape(id)
	Query   url.Values
	Body    any               // JSON-encoded when not nil ([]byte is sent as is)
	Headers map[string]string // extra headers
	// Warn writes the answer's Sandbox-Warning headers to stderr
	// ("Warning: ..."), for commands whose answer's body does not say it.
	Warn bool
}

// do sends r with the key (and the version header the merchant API needs)
// and returns the raw 2xx body, or an *apiError.
func (o *clientOptions) do(ctx context.Context, r request) ([]byte, error) {
	u := strings.TrimRight(o.URL, "/") + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var rd io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, rd)
	if err != nil {
		return nil, usageErrorf("bad request URL %q: %v", u, err)
	}
	req.Header.Set("X-API-KEY", o.APIKey)
	if !strings.HasPrefix(r.Path, "/_sandbox/") {
		v := o.APIVersion
		if v == "" {
			v = defaultAPIVersion
		}
		req.Header.Set("X-API-VERSION", v)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	hc := o.deps.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, &checkError{id: "ConnectionError", msg: fmt.Sprintf("cannot reach the sandbox at %s (%v); is `paysandbox serve` running? Set --url or PAYSANDBOX_URL", o.URL, err)}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, &checkError{id: "ConnectionError", msg: "reading the answer: " + err.Error()}
	}
	if res.StatusCode/100 != 2 {
		return nil, toAPIError(res.StatusCode, raw)
	}
	if r.Warn && o.deps.Err != nil {
		for _, w := range res.Header.Values("Sandbox-Warning") {
			fmt.Fprintln(o.deps.Err, "Warning: "+w)
		}
	}
	return raw, nil
}

func toAPIError(status int, raw []byte) *apiError {
	var eb struct {
		Error struct {
			ErrorID          string `json:"errorId"`
			Description      string `json:"description"`
			ValidationErrors []struct {
				Errors []simulator.FieldError `json:"errors"`
			} `json:"validationErrors"`
		} `json:"error"`
	}
	e := &apiError{Status: status, Body: raw}
	if json.Unmarshal(raw, &eb) == nil && eb.Error.ErrorID != "" {
		e.ErrorID, e.Description = eb.Error.ErrorID, eb.Error.Description
		var parts []string
		for _, ve := range eb.Error.ValidationErrors {
			for _, fe := range ve.Errors {
				if strings.HasPrefix(fe.Description, fe.Path+":") { // e.g. a scenario problem "line 3: ..."
					parts = append(parts, fe.Description)
				} else {
					parts = append(parts, fe.Path+": "+fe.Description)
				}
			}
		}
		if len(parts) > 0 {
			e.Description += " (" + strings.Join(parts, "; ") + ")"
		}
		return e
	}
	e.ErrorID = "HTTP" + fmt.Sprint(status)
	e.Description = strings.TrimSpace(string(raw[:min(len(raw), 200)]))
	if e.Description == "" {
		e.Description = http.StatusText(status)
	}
	return e
}

// render prints an answer: the JSON document (indented) with --output json,
// else what table makes of it.
func (o *clientOptions) render(raw []byte, table func(w io.Writer, v map[string]any) error) error {
	out := o.deps.Out
	if o.Output == "json" || table == nil {
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
			return &checkError{id: "BadAnswer", msg: "the sandbox answered something that is not JSON"}
		}
		buf.WriteByte('\n')
		_, err := out.Write(buf.Bytes())
		return err
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return &checkError{id: "BadAnswer", msg: "the sandbox answered something that is not a JSON object"}
	}
	return table(out, v)
}

// listTable renders v["data"] as an aligned table of the given columns.
func listTable(cols ...string) func(io.Writer, map[string]any) error {
	return func(w io.Writer, v map[string]any) error {
		rows, _ := v["data"].([]any)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		head := make([]string, len(cols))
		for i, c := range cols {
			head[i] = strings.ToUpper(c)
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			m, _ := r.(map[string]any)
			cells := make([]string, len(cols))
			for i, c := range cols {
				cells[i] = cell(lookup(m, c))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if len(rows) == 0 {
			fmt.Fprintln(tw, "(none)")
		}
		return tw.Flush()
	}
}

// objectTable renders one object as aligned "key  value" lines: keys first
// in the given order, then (when all is true) the remaining keys sorted.
func objectTable(all bool, keys ...string) func(io.Writer, map[string]any) error {
	return func(w io.Writer, v map[string]any) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		seen := map[string]bool{}
		for _, k := range keys {
			seen[k] = true
			if val := lookup(v, k); val != nil {
				fmt.Fprintf(tw, "%s\t%s\n", k, cell(val))
			}
		}
		if all {
			rest := make([]string, 0, len(v))
			for k := range v {
				if !seen[k] {
					rest = append(rest, k)
				}
			}
			sort.Strings(rest)
			for _, k := range rest {
				fmt.Fprintf(tw, "%s\t%s\n", k, cell(v[k]))
			}
		}
		return tw.Flush()
	}
}

// lookup reads a dotted path ("processor.amountCaptured") from a JSON object.
func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[part]
	}
	return cur
}

// cell is a table cell: scalars as they are, arrays and objects as compact JSON.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		if x == "" {
			return "-"
		}
		return x
	case json.Number, bool, float64, int:
		return fmt.Sprint(x)
	case []any:
		if len(x) == 0 {
			return "-"
		}
	}
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// runCLI executes the command line and returns the process exit code;
// errors are printed once, on stderr, as "Error: <errorId>: <description>".
func runCLI(args []string, deps *cliDeps) int {
	root := newRootCmd(deps.Out, deps.Err)
	root.SetArgs(args)
	root.SilenceErrors = true
	return reportError(deps.Err, root.Execute())
}

// reportError prints err (if any) on w as one "Error: <errorId>:
// <description>" line and returns the exit code.
func reportError(w io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	code := exitCodeOf(err)
	msg := err.Error()
	if code == exitUsage {
		msg = "UsageError: " + msg + " (see --help)"
	}
	fmt.Fprintln(w, "Error: "+msg)
	return code
}

// exitCodeOf classifies an error: usage errors (ours, and cobra's about
// flags, arguments and commands) are 2, everything else 1.
func exitCodeOf(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument", "accepts ", "requires at least", "required flag"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return exitUsage
		}
	}
	return exitError
}
