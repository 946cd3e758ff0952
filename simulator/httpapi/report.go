package httpapi

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/internal/redact"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Report formats of GET /_sandbox/report?format= and their content types.
const (
	ReportJSON     = "json"
	ReportJUnit    = "junit"
	ReportMarkdown = "markdown"
)

// ReportFormats lists the accepted formats, the default first.
var ReportFormats = []string{ReportJSON, ReportJUnit, ReportMarkdown}

var reportTypes = map[string]string{
	ReportJSON:     echo.MIMEApplicationJSON,
	ReportJUnit:    "application/xml; charset=UTF-8",
	ReportMarkdown: "text/markdown; charset=UTF-8",
}

// report is GET /_sandbox/report?format=json|junit|markdown: the CI report
// of the caller's tenant. Reading it writes nothing and counts nothing (the
// journal does not record it).
func (s *Server) report(c echo.Context) error {
	format := c.QueryParam("format")
	if format == "" {
		format = ReportJSON
	}
	if _, ok := reportTypes[format]; !ok {
		return simulator.ValidationError("ReportQuery", simulator.FieldError{Path: "$.format",
			Description: "format must be one of " + strings.Join(ReportFormats, ", ") + " (default json)"}).
			WithRecovery("Use ?format=json, ?format=junit or ?format=markdown; see docs/ci.md")
	}
	t := tenantOf(c)
	r, err := s.svc.Report(t)
	if err != nil {
		return err
	}
	dto := s.reportOf(t, r)
	switch format {
	case ReportJUnit:
		return c.Blob(http.StatusOK, reportTypes[format], dto.junit(s.svc.ServerNow()))
	case ReportMarkdown:
		return c.Blob(http.StatusOK, reportTypes[format], dto.markdown())
	}
	return writeJSON(c, http.StatusOK, dto)
}

// reportDTO is the JSON form of the CI report; the JUnit and markdown forms
// are rendered from it.
type reportDTO struct {
	TenantID    string              `json:"tenantId"`
	GeneratedAt string              `json:"generatedAt"`
	Summary     reportSummaryDTO    `json:"summary"`
	Requests    []reportRouteDTO    `json:"requests"`
	Rules       reportRulesDTO      `json:"rules"`
	Webhooks    []reportEndpointDTO `json:"webhooks"`
	Hints       []reportHintDTO     `json:"hints"`
	Migration   []migrationItemDTO  `json:"migration"`
}

// reportSummaryDTO totals the report; `paysandbox report --fail-on` reads
// hints, webhooksExhausted and migrationNotes.
type reportSummaryDTO struct {
	Requests           int64 `json:"requests"`
	Hints              int64 `json:"hints"`
	HintKinds          int   `json:"hintKinds"`
	WebhooksDelivered  int64 `json:"webhooksDelivered"`
	WebhooksRetried    int64 `json:"webhooksRetried"`
	WebhooksExhausted  int64 `json:"webhooksExhausted"`
	WebhooksNoEndpoint int64 `json:"webhooksNoEndpoint"`
	RulesMatched       int   `json:"rulesMatched"`
	RulesNeverMatched  int   `json:"rulesNeverMatched"`
	MigrationNotes     int64 `json:"migrationNotes"`
}

type reportRouteDTO struct {
	Method string `json:"method"`
	Route  string `json:"route"`
	Status int    `json:"status"`
	Count  int64  `json:"count"`
}

// reportRulesDTO: the rules that decided payments, those in force that
// never did, and the payments no rule matched (the default processor's
// behaviour; rule "(no rule)").
type reportRulesDTO struct {
	Matched      []reportRuleDTO `json:"matched"`
	NeverMatched []string        `json:"neverMatched"`
	NoRule       reportRuleDTO   `json:"noRule"`
}

// reportNoRule names the payments no rule matched.
const reportNoRule = "(no rule)"

type reportRuleDTO struct {
	Rule              string   `json:"rule"`
	Count             int64    `json:"count"`
	InForce           bool     `json:"inForce"`
	ExamplePaymentIDs []string `json:"examplePaymentIds"`
	ExampleRequestIDs []string `json:"exampleRequestIds"`
	LastSeen          string   `json:"lastSeen,omitempty"`
}

type reportEndpointDTO struct {
	URL             string           `json:"url"`
	Delivered       int64            `json:"delivered"`
	Retried         int64            `json:"retried"`
	Exhausted       int64            `json:"exhausted"`
	NoEndpoint      int64            `json:"noEndpoint"`
	ExhaustedEvents []reportEventDTO `json:"exhaustedEvents"`
}

type reportEventDTO struct {
	EventID           string   `json:"eventId"`
	EventType         string   `json:"eventType"`
	PaymentID         string   `json:"paymentId,omitempty"`
	Error             string   `json:"error,omitempty"`
	ExampleRequestIDs []string `json:"exampleRequestIds"`
}

type reportHintDTO struct {
	Kind              string   `json:"kind"`
	Count             int64    `json:"count"`
	LastMessage       string   `json:"lastMessage"`
	Fix               string   `json:"fix"`
	ExampleRequestIDs []string `json:"exampleRequestIds"`
	ExampleEventIDs   []string `json:"exampleEventIds"`
	FirstSeen         string   `json:"firstSeen"`
	LastSeen          string   `json:"lastSeen"`
}

// reportOf renders the service's report; the journal supplies the example
// requests of rules and exhausted events (those of the payments they name
// that it still holds).
func (s *Server) reportOf(t *simulator.Tenant, r *service.Report) reportDTO {
	rc := r.Counts
	d := reportDTO{TenantID: t.ID, GeneratedAt: ts(s.svc.Now(t)), Requests: []reportRouteDTO{},
		Rules: reportRulesDTO{Matched: []reportRuleDTO{}, NeverMatched: []string{}}, Webhooks: []reportEndpointDTO{},
		Hints: []reportHintDTO{}, Migration: []migrationItemDTO{}}

	var pids []string
	for _, rule := range rc.Rules {
		pids = append(pids, rule.ExamplePaymentIDs...)
	}
	for _, ep := range rc.Webhooks {
		for _, ev := range ep.ExhaustedEvents {
			pids = append(pids, ev.PaymentID)
		}
	}
	byPayment := s.journal.RequestIDsByPayment(t.ID, pids, observe.ReportExamples)
	requestsOf := func(pids ...string) []string {
		out := []string{}
		for _, pid := range pids {
			for _, id := range byPayment[pid] {
				if len(out) < observe.ReportExamples && !containsID(out, id) {
					out = append(out, id)
				}
			}
		}
		return out
	}

	for _, rq := range rc.Requests {
		method, route, ok := strings.Cut(rq.Route, " ")
		if !ok {
			method, route = "", rq.Route
		}
		d.Requests = append(d.Requests, reportRouteDTO{Method: method, Route: route, Status: rq.Status, Count: rq.Count})
		d.Summary.Requests += rq.Count
	}
	sort.Slice(d.Requests, func(a, b int) bool {
		x, y := d.Requests[a], d.Requests[b]
		if x.Route != y.Route {
			return x.Route < y.Route
		}
		if x.Method != y.Method {
			return x.Method < y.Method
		}
		return x.Status < y.Status
	})

	inForce := map[string]bool{}
	for _, name := range r.RulesInForce {
		inForce[name] = true
	}
	matched := map[string]bool{}
	d.Rules.NoRule = reportRuleDTO{Rule: reportNoRule, ExamplePaymentIDs: []string{}, ExampleRequestIDs: []string{}}
	for _, rule := range rc.Rules {
		dto := reportRuleDTO{Rule: rule.Rule, Count: rule.Count, InForce: inForce[rule.Rule],
			ExamplePaymentIDs: orEmpty(rule.ExamplePaymentIDs), ExampleRequestIDs: requestsOf(rule.ExamplePaymentIDs...), LastSeen: tsPtr(rule.LastSeen)}
		if rule.Rule == "" {
			dto.Rule = reportNoRule
			d.Rules.NoRule = dto
			continue
		}
		matched[rule.Rule] = true
		d.Rules.Matched = append(d.Rules.Matched, dto)
	}
	sort.SliceStable(d.Rules.Matched, func(a, b int) bool { return d.Rules.Matched[a].Count > d.Rules.Matched[b].Count })
	for _, name := range r.RulesInForce {
		if !matched[name] {
			d.Rules.NeverMatched = append(d.Rules.NeverMatched, name)
		}
	}
	d.Summary.RulesMatched, d.Summary.RulesNeverMatched = len(d.Rules.Matched), len(d.Rules.NeverMatched)

	for _, ep := range rc.Webhooks {
		e := reportEndpointDTO{URL: redact.String(ep.URL), Delivered: ep.Delivered, Retried: ep.Retried, Exhausted: ep.Exhausted, NoEndpoint: ep.NoEndpoint,
			ExhaustedEvents: []reportEventDTO{}}
		for i := len(ep.ExhaustedEvents) - 1; i >= 0; i-- { // newest first
			ev := ep.ExhaustedEvents[i]
			e.ExhaustedEvents = append(e.ExhaustedEvents, reportEventDTO{EventID: ev.EventID, EventType: ev.EventType,
				PaymentID: ev.PaymentID, Error: redact.String(ev.Error), ExampleRequestIDs: requestsOf(ev.PaymentID)})
		}
		d.Webhooks = append(d.Webhooks, e)
		d.Summary.WebhooksDelivered += ep.Delivered
		d.Summary.WebhooksRetried += ep.Retried
		d.Summary.WebhooksExhausted += ep.Exhausted
		d.Summary.WebhooksNoEndpoint += ep.NoEndpoint
	}
	sort.SliceStable(d.Webhooks, func(a, b int) bool { return d.Webhooks[a].URL < d.Webhooks[b].URL })

	for _, h := range rc.Hints {
		d.Hints = append(d.Hints, reportHintDTO{Kind: h.Kind, Count: h.Count, LastMessage: h.LastMessage, Fix: hintFixes[h.Kind],
			ExampleRequestIDs: orEmpty(h.ExampleRequestIDs), ExampleEventIDs: orEmpty(h.ExampleEventIDs),
			FirstSeen: ts(h.FirstSeen), LastSeen: ts(h.LastSeen)})
		d.Summary.Hints += h.Count
	}
	sort.SliceStable(d.Hints, func(a, b int) bool {
		if d.Hints[a].Count != d.Hints[b].Count {
			return d.Hints[a].Count > d.Hints[b].Count
		}
		return d.Hints[a].Kind < d.Hints[b].Kind
	})
	d.Summary.HintKinds = len(d.Hints)

	d.Migration = migrationItems(r.Migration.Items)
	for _, n := range r.Migration.Items {
		d.Summary.MigrationNotes += n.Count
	}
	return d
}

func orEmpty(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func containsID(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// hintKinds are the hint kinds the product raises, in the order the JUnit
// report lists them (each a test case: failing when raised).
var hintKinds = []string{HintMissingIdempotencyKey, HintRetryAfter504NewKey, HintTightPolling,
	HintWebhookNon2xx, HintUnknownQueryParam, HintMissingAPIVersion}

// JUnit XML as the Jenkins xunit plugin's junit-10.xsd has it (vendored in
// testdata/, which CI validates reports against): testsuites > testsuite >
// properties and testcase, a failure or skipped element in a case. The
// schema allows no skipped count on testsuites: each suite carries its own.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitTimestamp is the form of a testsuite's timestamp: the wall clock in
// UTC, without fraction or offset, which is what the schema's readers
// (Jenkins, Surefire-style parsers) expect.
const junitTimestamp = "2006-01-02T15:04:05"

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

// junitProperty is a name and value a CI server shows beside a suite.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// The properties of each suite: the tenant, and its clock when the report
// was made (a tenant's clock runs ahead of the wall clock after advances,
// so it is no timestamp).
const (
	junitPropTenant      = "paysandbox.tenantId"
	junitPropTenantClock = "paysandbox.tenantClock"
)

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// junit renders the report as JUnit XML made at wall (the server's clock,
// not the tenant's): each hint kind raised and each endpoint with exhausted
// events is a failing test case; each matched rule and each hint kind not
// raised a passing one; a rule never matched is skipped; migration notes
// are passing cases (a pinned version is no failure) that say what changes
// on 2.4.
func (d reportDTO) junit(wall time.Time) []byte {
	const prefix = "paysandbox."
	props := []junitProperty{{Name: junitPropTenant, Value: d.TenantID}, {Name: junitPropTenantClock, Value: d.GeneratedAt}}
	suite := func(name string, cases []junitCase) junitSuite {
		s := junitSuite{Name: prefix + name, Tests: len(cases), Timestamp: wall.UTC().Format(junitTimestamp), Properties: props, Cases: cases}
		for i := range s.Cases {
			s.Cases[i].Classname, s.Cases[i].Time = prefix+name, "0"
			if s.Cases[i].Failure != nil {
				s.Failures++
			}
			if s.Cases[i].Skipped != nil {
				s.Skipped++
			}
		}
		return s
	}

	var hints []junitCase
	raised := map[string]reportHintDTO{}
	for _, h := range d.Hints {
		raised[h.Kind] = h
	}
	kinds := append([]string{}, hintKinds...)
	for _, h := range d.Hints {
		if !containsID(kinds, h.Kind) {
			kinds = append(kinds, h.Kind)
		}
	}
	for _, kind := range kinds {
		c := junitCase{Name: kind}
		if h, ok := raised[kind]; ok {
			var b strings.Builder
			fmt.Fprintf(&b, "Raised %d times (%s .. %s).\nLatest: %s\nFix: %s\n", h.Count, h.FirstSeen, h.LastSeen, h.LastMessage, h.Fix)
			if len(h.ExampleRequestIDs) > 0 {
				fmt.Fprintf(&b, "Example requests (GET /_sandbox/requests): %s\n", strings.Join(h.ExampleRequestIDs, ", "))
			}
			if len(h.ExampleEventIDs) > 0 {
				fmt.Fprintf(&b, "Example events (GET /_sandbox/webhooks/events/{id}): %s\n", strings.Join(h.ExampleEventIDs, ", "))
			}
			c.Failure = &junitFailure{Message: h.LastMessage, Type: kind, Text: b.String()}
		}
		hints = append(hints, c)
	}

	webhooks := []junitCase{}
	for _, ep := range d.Webhooks {
		c := junitCase{Name: "deliveries to " + endpointName(ep.URL),
			SystemOut: fmt.Sprintf("delivered %d, retried %d, exhausted %d", ep.Delivered, ep.Retried, ep.Exhausted)}
		if ep.NoEndpoint > 0 {
			c.SystemOut += fmt.Sprintf(", recorded without an endpoint (not sent) %d", ep.NoEndpoint)
		}
		if ep.Exhausted > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "%d event(s) exhausted their delivery attempts at %s.\n", ep.Exhausted, endpointName(ep.URL))
			for _, ev := range ep.ExhaustedEvents {
				fmt.Fprintf(&b, "Event %s (%s", ev.EventID, ev.EventType)
				if ev.PaymentID != "" {
					fmt.Fprintf(&b, ", payment %s", ev.PaymentID)
				}
				fmt.Fprintf(&b, "): %s", ev.Error)
				if len(ev.ExampleRequestIDs) > 0 {
					fmt.Fprintf(&b, "; requests %s", strings.Join(ev.ExampleRequestIDs, ", "))
				}
				b.WriteString("\n")
			}
			b.WriteString("Fix: answer webhooks with a 2xx (or set an endpoint), then replay them with POST /_sandbox/webhooks/events/{id}/replay.\n")
			c.Failure = &junitFailure{Message: fmt.Sprintf("%d webhook event(s) exhausted at %s", ep.Exhausted, endpointName(ep.URL)),
				Type: "webhook-exhausted", Text: b.String()}
		}
		webhooks = append(webhooks, c)
	}

	rules := []junitCase{}
	for _, r := range d.Rules.Matched {
		out := fmt.Sprintf("%d payment(s), the latest at %s", r.Count, r.LastSeen)
		if len(r.ExamplePaymentIDs) > 0 {
			out += "; payments " + strings.Join(r.ExamplePaymentIDs, ", ")
		}
		if len(r.ExampleRequestIDs) > 0 {
			out += "; requests " + strings.Join(r.ExampleRequestIDs, ", ")
		}
		if !r.InForce {
			out += " (no longer in force)"
		}
		rules = append(rules, junitCase{Name: "rule " + r.Rule, SystemOut: out})
	}
	for _, name := range d.Rules.NeverMatched {
		rules = append(rules, junitCase{Name: "rule " + name, Skipped: &junitSkipped{Message: "no payment matched this rule"}})
	}

	migration := []junitCase{}
	for _, n := range d.Migration {
		migration = append(migration, junitCase{Name: n.Kind,
			SystemOut: fmt.Sprintf("%d request(s) made with 2.1-2.3 (%s .. %s): %s; requests %s", n.Count, n.FirstSeen, n.LastSeen, n.summary(), strings.Join(n.ExampleRequestIDs, ", "))})
	}

	all := junitSuites{Name: "paysandbox report " + d.TenantID, Suites: []junitSuite{
		suite("hints", hints), suite("webhooks", webhooks), suite("scenarios", rules), suite("migration", migration)}}
	for _, s := range all.Suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
	}
	b, _ := xml.MarshalIndent(all, "", "  ") // plain structs of strings and ints: no error
	return append(append([]byte(xml.Header), b...), '\n')
}

func endpointName(url string) string {
	if url == "" {
		return "(no endpoint)"
	}
	return url
}

// markdown renders the report for a GitHub job summary: a summary table,
// then one table per section.
func (d reportDTO) markdown() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	row := func(cells ...string) {
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		p("| %s |\n", strings.Join(cells, " | "))
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	ids := func(list []string) string {
		if len(list) == 0 {
			return "-"
		}
		return "`" + strings.Join(list, "` `") + "`"
	}

	p("## paysandbox report\n\nTenant `%s`, generated %s (tenant clock).\n\n", d.TenantID, d.GeneratedAt)
	status := func(bad bool) string {
		if bad {
			return "❌"
		}
		return "✅"
	}
	p("| Check | Result |\n|---|---|\n")
	row(status(d.Summary.Hints > 0)+" Hints", fmt.Sprintf("%d raised, %d kind(s)", d.Summary.Hints, d.Summary.HintKinds))
	row(status(d.Summary.WebhooksExhausted > 0)+" Webhooks", fmt.Sprintf("%d delivered, %d retried, %d exhausted", d.Summary.WebhooksDelivered, d.Summary.WebhooksRetried, d.Summary.WebhooksExhausted))
	row("Scenario rules", fmt.Sprintf("%d matched, %d never matched", d.Summary.RulesMatched, d.Summary.RulesNeverMatched))
	row("Migration notes", fmt.Sprintf("%d request(s) behave differently on 2.4", d.Summary.MigrationNotes))
	row("Requests", n(d.Summary.Requests))

	if len(d.Hints) > 0 {
		p("\n### Hints\n\n| Kind | Count | Latest | Fix | Examples |\n|---|---:|---|---|---|\n")
		for _, h := range d.Hints {
			ex := h.ExampleRequestIDs
			if len(ex) == 0 {
				ex = h.ExampleEventIDs
			}
			row("`"+h.Kind+"`", n(h.Count), h.LastMessage, h.Fix, ids(ex))
		}
	}
	if len(d.Webhooks) > 0 {
		p("\n### Webhook deliveries\n\n| Endpoint | Delivered | Retried | Exhausted | Exhausted events | Not sent (no endpoint) |\n|---|---:|---:|---:|---|---:|\n")
		for _, ep := range d.Webhooks {
			var evs []string
			for _, ev := range ep.ExhaustedEvents {
				evs = append(evs, ev.EventID)
			}
			row(endpointName(ep.URL), n(ep.Delivered), n(ep.Retried), n(ep.Exhausted), ids(evs), n(ep.NoEndpoint))
		}
	}
	if len(d.Rules.Matched)+len(d.Rules.NeverMatched) > 0 || d.Rules.NoRule.Count > 0 {
		p("\n### Scenario rules\n\n| Rule | Payments | Example payments | Example requests |\n|---|---:|---|---|\n")
		for _, r := range d.Rules.Matched {
			name := "`" + r.Rule + "`"
			if !r.InForce {
				name += " (no longer in force)"
			}
			row(name, n(r.Count), ids(r.ExamplePaymentIDs), ids(r.ExampleRequestIDs))
		}
		if r := d.Rules.NoRule; r.Count > 0 {
			row("no rule (the default processor)", n(r.Count), ids(r.ExamplePaymentIDs), ids(r.ExampleRequestIDs))
		}
		// The rules never matched are one collapsed line, not a row each:
		// with the built-in rules in force they are most of the table.
		if nm := d.Rules.NeverMatched; len(nm) > 0 {
			what := "rules"
			if len(nm) == 1 {
				what = "rule"
			}
			p("\n<details><summary>%d %s never matched</summary>\n\n`%s`\n\n</details>\n", len(nm), what, strings.Join(nm, "`, `"))
		}
	}
	if len(d.Migration) > 0 {
		p("\n### Migration notes (API 2.1-2.3)\n\n| Kind | Count | What changes on 2.4 | Example requests |\n|---|---:|---|---|\n")
		for _, m := range d.Migration {
			row("`"+m.Kind+"`", n(m.Count), m.summary(), ids(m.ExampleRequestIDs))
		}
	}
	if len(d.Requests) > 0 {
		p("\n### Requests\n\n| Route | Status | Count |\n|---|---:|---:|\n")
		for _, r := range d.Requests {
			row(strings.TrimSpace(r.Method+" "+r.Route), strconv.Itoa(r.Status), n(r.Count))
		}
	}
	return b.Bytes()
}

// mdCell keeps a value inside its markdown table cell: pipes escaped,
// line breaks as spaces.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}
