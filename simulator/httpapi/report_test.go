package httpapi_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// reportJSON reads GET /_sandbox/report (JSON).
type reportJSON struct {
	TenantID string `json:"tenantId"`
	Summary  struct {
		Requests          int64 `json:"requests"`
		Hints             int64 `json:"hints"`
		WebhooksExhausted int64 `json:"webhooksExhausted"`
		RulesMatched      int   `json:"rulesMatched"`
		MigrationNotes    int64 `json:"migrationNotes"`
	} `json:"summary"`
	Requests []struct {
		Method string `json:"method"`
		Route  string `json:"route"`
		Status int    `json:"status"`
		Count  int64  `json:"count"`
	} `json:"requests"`
	Rules struct {
		Matched []struct {
			Rule              string   `json:"rule"`
			Count             int64    `json:"count"`
			InForce           bool     `json:"inForce"`
			ExamplePaymentIDs []string `json:"examplePaymentIds"`
			ExampleRequestIDs []string `json:"exampleRequestIds"`
		} `json:"matched"`
		NeverMatched []string `json:"neverMatched"`
		NoRule       struct {
			Count int64 `json:"count"`
		} `json:"noRule"`
	} `json:"rules"`
	Hints []struct {
		Kind              string   `json:"kind"`
		Count             int64    `json:"count"`
		Fix               string   `json:"fix"`
		ExampleRequestIDs []string `json:"exampleRequestIds"`
	} `json:"hints"`
	Migration []struct {
		Kind  string `json:"kind"`
		Count int64  `json:"count"`
	} `json:"migration"`
}

func readReport(t *testing.T, a *testAPI) reportJSON {
	t.Helper()
	r := a.must(200, "GET", "/_sandbox/report", nil)
	assert.Equal(t, "application/json", strings.Split(r.Header.Get("Content-Type"), ";")[0])
	var out reportJSON
	require.NoError(t, json.Unmarshal(r.Body, &out), "%s", r.Body)
	return out
}

// routeCount is the count of method+route answered with status.
func (r reportJSON) routeCount(method, route string, status int) int64 {
	for _, x := range r.Requests {
		if x.Method == method && x.Route == route && x.Status == status {
			return x.Count
		}
	}
	return 0
}

// TestReportCounts: the report counts requests by route template and
// status, the rules payments were given (and those in force never
// matched), hints and migration notes, per tenant; the counts go beyond the
// journal's bound, survive a restart, and a reset clears them.
func TestReportCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	a, stop := startAPI(t, apiOptions{Path: path, Fsync: "always", JournalSize: 3})
	a = a.asNewTenant()
	require.Equal(t, 200, a.putRules("rules:\n  - name: decline-it\n    when: { amount: 1313 }\n    authorize: { status: DECLINED }\n  - name: never-used\n    when: { amount: 4242 }\n    authorize: { status: FAILED }\n").Status)

	declined := a.payFull(1313, numOK, nil)
	require.Equal(t, 200, declined.Status, "%s", declined.Body)
	const polls = 6 // more than the journal keeps
	for range polls {
		a.must(200, "GET", "/payments/"+declined.Str("id"), nil)
	}
	a.req("GET", "/payments", nil, "X-API-VERSION:")                                                         // 400, hint missing-api-version
	a.req("POST", "/payment-attempts/00000000-0000-4000-8000-000000000001/approve", nil, ver(simulator.V22)) // a migration note
	plain := a.payFull(1000, numOK, nil, "X-Idempotency-Key: k1")
	require.Equal(t, 200, plain.Status)

	r := readReport(t, a)
	assert.EqualValues(t, polls, r.routeCount("GET", "/payments/{id}", 200), "counted beyond the journal's bound of 3")
	assert.EqualValues(t, 1, r.routeCount("GET", "/payments", 400))
	assert.EqualValues(t, 2, r.routeCount("POST", "/payments", 200))
	assert.Zero(t, r.routeCount("GET", "/_sandbox/report", 200), "reading the report counts nothing")
	require.Len(t, r.Rules.Matched, 1)
	assert.Equal(t, "decline-it", r.Rules.Matched[0].Rule)
	assert.EqualValues(t, 1, r.Rules.Matched[0].Count)
	assert.True(t, r.Rules.Matched[0].InForce)
	assert.Equal(t, []string{declined.Str("id")}, r.Rules.Matched[0].ExamplePaymentIDs)
	assert.Equal(t, []string{"never-used"}, r.Rules.NeverMatched)
	assert.EqualValues(t, 1, r.Rules.NoRule.Count, "the payment no rule matched")
	kinds := map[string]int64{}
	for _, h := range r.Hints {
		kinds[h.Kind] = h.Count
		assert.NotEmpty(t, h.Fix)
		assert.NotEmpty(t, h.ExampleRequestIDs)
	}
	assert.EqualValues(t, 1, kinds["missing-api-version"])
	assert.EqualValues(t, 1, kinds["missing-idempotency-key"], "the first payment had no key")
	assert.NotZero(t, kinds["tight-polling"])
	assert.NotEmpty(t, r.Migration, "the 2.2 request's migration note")
	other := readReport(t, a.asNewTenant())
	assert.Zero(t, other.routeCount("GET", "/payments/{id}", 200), "per tenant")
	assert.Empty(t, other.Hints, "per tenant")

	stop()
	b, _ := startAPI(t, apiOptions{Path: path, Fsync: "always"})
	b.Key = a.Key
	again := readReport(t, b)
	assert.Equal(t, r.Requests, again.Requests, "counts persist across a restart")
	assert.Equal(t, r.Rules.Matched[0].Count, again.Rules.Matched[0].Count)
	assert.Equal(t, []string{"never-used"}, again.Rules.NeverMatched)
	assert.Equal(t, r.Hints[0].Count, again.Hints[0].Count)

	b.must(200, "POST", "/_sandbox/reset", nil)
	cleared := readReport(t, b)
	assert.Zero(t, cleared.Summary.Requests, "a reset clears the counts")
	assert.Empty(t, cleared.Rules.Matched)
	assert.Equal(t, []string{"decline-it", "never-used"}, cleared.Rules.NeverMatched, "the rules in force stay")
}

// TestReportCommitsNothing: counting a request adds no store write to it,
// reading the report writes nothing, and a flush stores the counts in one
// write.
func TestReportCommitsNothing(t *testing.T) {
	p := newPipeline(t)
	ct := p.must("POST", "/client-session", plainSession(1000), "clientToken")
	tk := p.must("POST", "/client/payment-instruments", card(numOK), "token", "X-Client-Token", ct)
	assert.EqualValues(t, 1, p.commits("POST", "/payments", map[string]any{"paymentMethodToken": tk}), "a payment: its own write only")
	id := p.must("POST", "/client-session", plainSession(1000), "clientToken")
	_ = id
	assert.Zero(t, p.commits("GET", "/payments", nil), "a read")

	before := p.st.updates.Load()
	w := p.do("GET", "/_sandbox/report", nil)
	require.Equal(t, 200, w.Code, w.Body.String())
	assert.Equal(t, before, p.st.updates.Load(), "reading the report")
	var got reportJSON
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
	assert.EqualValues(t, 1, got.routeCount("POST", "/payments", 200), "seen before it is stored")
	assert.EqualValues(t, 1, got.Rules.NoRule.Count)

	require.NoError(t, p.svc.FlushCounts())
	assert.Equal(t, before+1, p.st.updates.Load(), "one write for the tenant's counts")
	w = p.do("GET", "/_sandbox/report", nil)
	var stored reportJSON
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &stored))
	assert.Equal(t, got.Requests, stored.Requests, "stored counts read as the counted ones")
}

// junitXML is the JUnit schema CI systems read.
type junitXML struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestReportFormats: ?format=junit is JUnit XML whose failing cases are the
// hint kinds raised (with their example requests) and whose counts add up;
// matched rules pass, rules never matched are skipped; ?format=markdown is
// tables for a job summary; an unknown format is a 422 naming the accepted
// ones.
func TestReportFormats(t *testing.T) {
	a := newTestAPI(t).asNewTenant()
	require.Equal(t, 200, a.putRules("rules:\n  - name: decline-it\n    when: { amount: 1313 }\n    authorize: { status: DECLINED }\n  - name: never-used\n    when: { amount: 4242 }\n    authorize: { status: FAILED }\n").Status)
	require.Equal(t, 200, a.payFull(1313, numOK, nil).Status) // missing-idempotency-key
	bad := a.req("GET", "/payments", nil, "X-API-VERSION:")   // missing-api-version

	r := a.must(200, "GET", "/_sandbox/report?format=junit", nil)
	assert.Equal(t, "application/xml", strings.Split(r.Header.Get("Content-Type"), ";")[0])
	var doc junitXML
	require.NoError(t, xml.Unmarshal(r.Body, &doc), "%s", r.Body)
	failed := map[string]string{}
	tests, failures := 0, 0
	passed, skipped := map[string]bool{}, map[string]bool{}
	for _, s := range doc.Suites {
		n, f, sk := 0, 0, 0
		for _, c := range s.Cases {
			n++
			assert.Equal(t, s.Name, c.Classname)
			switch {
			case c.Failure != nil:
				f++
				failed[c.Name] = c.Failure.Text
				assert.NotEmpty(t, c.Failure.Message)
			case c.Skipped != nil:
				sk++
				skipped[c.Name] = true
			default:
				passed[c.Name] = true
			}
		}
		assert.Equal(t, n, s.Tests, s.Name)
		assert.Equal(t, f, s.Failures, s.Name)
		assert.Equal(t, sk, s.Skipped, s.Name)
		tests, failures = tests+n, failures+f
	}
	assert.Equal(t, tests, doc.Tests)
	assert.Equal(t, failures, doc.Failures)
	assert.Len(t, failed, 2, "one failing case per hint kind raised: %v", failed)
	assert.Contains(t, failed["missing-api-version"], bad.Header.Get("X-Request-Id"), "with its example request")
	assert.Contains(t, failed, "missing-idempotency-key")
	assert.True(t, passed["tight-polling"], "a kind not raised passes")
	assert.True(t, passed["rule decline-it"], "a matched rule passes")
	assert.True(t, skipped["rule never-used"], "a rule never matched is skipped")

	md := a.must(200, "GET", "/_sandbox/report?format=markdown", nil)
	assert.Equal(t, "text/markdown", strings.Split(md.Header.Get("Content-Type"), ";")[0])
	text := string(md.Body)
	assert.True(t, strings.HasPrefix(text, "## paysandbox report\n"), text)
	for _, want := range []string{"| Check | Result |\n|---|---|\n", "\n### Hints\n\n| Kind | Count |", "| `missing-api-version` | 1 |",
		"\n### Scenario rules\n", "| `decline-it` | 1 |", "\n<details><summary>1 rule never matched</summary>\n\n`never-used`\n\n</details>\n", "\n### Requests\n", "| GET /payments | 400 | 1 |"} {
		assert.Contains(t, text, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "|") {
			assert.True(t, strings.HasSuffix(line, "|"), "a table row ends its cells: %q", line)
		}
	}

	for _, f := range []string{"xml", "JSON", "html"} {
		e := a.req("GET", "/_sandbox/report?format="+f, nil)
		assert.Equal(t, 422, e.Status, f)
		assert.Contains(t, string(e.Body), "json, junit, markdown", f)
	}
	assert.Equal(t, 200, a.req("GET", "/_sandbox/report?format=json", nil).Status)
}

// junitXSD is the Jenkins xunit plugin's JUnit schema, vendored (MIT).
const junitXSD = "testdata/junit-10.xsd"

// xsdAttributes reads the vendored JUnit schema: for each element it
// declares, its attributes, each with whether it is required.
func xsdAttributes(t *testing.T) map[string]map[string]bool {
	t.Helper()
	f, err := os.Open(junitXSD)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]map[string]bool{}
	var stack []string // the names of the xs:element declarations open
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		attr := func(e xml.StartElement, name string) string {
			for _, a := range e.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "element":
				name := attr(e, "name")
				stack = append(stack, name)
				if name != "" && out[name] == nil {
					out[name] = map[string]bool{}
				}
			case "attribute":
				if len(stack) > 0 && stack[len(stack)-1] != "" {
					out[stack[len(stack)-1]][attr(e, "name")] = attr(e, "use") == "required"
				}
			}
		case xml.EndElement:
			if e.Name.Local == "element" {
				stack = stack[:len(stack)-1]
			}
		}
	}
	require.NotEmpty(t, out["testsuites"], "the schema declares testsuites")
	return out
}

// junitReport is a JUnit report of a tenant whose clock is hours ahead of
// the server's (a clock advance), with a failing, a passing and a skipped
// case.
func junitReport(t *testing.T) (a *testAPI, body []byte) {
	t.Helper()
	a = newTestAPI(t).asNewTenant()
	require.Equal(t, 200, a.putRules("rules:\n  - name: decline-it\n    when: { amount: 1313 }\n    authorize: { status: DECLINED }\n  - name: never-used\n    when: { amount: 4242 }\n    authorize: { status: FAILED }\n").Status)
	require.Equal(t, 200, a.payFull(1313, numOK, nil).Status) // missing-idempotency-key
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "5h"})
	r := a.must(200, "GET", "/_sandbox/report?format=junit", nil)
	return a, r.Body
}

// TestReportJUnitSchema: the JUnit report uses only the elements and
// attributes the vendored junit-10.xsd declares, with every required one
// (no skipped count on testsuites); each suite's timestamp is the server's
// wall clock in UTC without fraction or offset, and the tenant's clock,
// hours ahead after an advance, is a property.
func TestReportJUnitSchema(t *testing.T) {
	schema := xsdAttributes(t)
	a, body := junitReport(t)
	dec := xml.NewDecoder(bytes.NewReader(body))
	var timestamps, clocks []string
	suites := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attrs, declared := schema[e.Name.Local]
		require.True(t, declared, "<%s> is not an element of %s", e.Name.Local, junitXSD)
		seen := map[string]bool{}
		for _, at := range e.Attr {
			_, ok := attrs[at.Name.Local]
			assert.True(t, ok, "<%s %s=...>: %s allows no such attribute", e.Name.Local, at.Name.Local, junitXSD)
			seen[at.Name.Local] = true
			if e.Name.Local == "testsuite" && at.Name.Local == "timestamp" {
				timestamps = append(timestamps, at.Value)
			}
		}
		for name, required := range attrs {
			if required {
				assert.True(t, seen[name], "<%s> lacks its required %s", e.Name.Local, name)
			}
		}
		switch e.Name.Local {
		case "testsuite":
			suites++
		case "property":
			var p struct{ Name, Value string }
			for _, at := range e.Attr {
				switch at.Name.Local {
				case "name":
					p.Name = at.Value
				case "value":
					p.Value = at.Value
				}
			}
			if p.Name == "paysandbox.tenantClock" {
				clocks = append(clocks, p.Value)
			}
		}
	}
	require.Equal(t, 4, suites)
	wall := a.Clock.Now().UTC().Format("2006-01-02T15:04:05")
	assert.Equal(t, []string{wall, wall, wall, wall}, timestamps, "the wall clock, in UTC, without fraction or offset")
	for _, ts := range timestamps {
		assert.Regexp(t, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`, ts)
	}
	tenantNow := simulator.FormatTime(a.Clock.Now().Add(5 * time.Hour))
	assert.Equal(t, []string{tenantNow, tenantNow, tenantNow, tenantNow}, clocks, "the tenant's clock, 5h ahead, is a property of each suite")
	assert.NotContains(t, string(body[:bytes.Index(body, []byte("<testsuite "))]), "skipped=", "testsuites carries no skipped count")
}

// TestReportJUnitXmllint: a real report validates against the vendored
// junit-10.xsd with xmllint (Debian's libxml2-utils). Without xmllint the
// test is skipped, unless PAYSANDBOX_REQUIRE_XMLLINT is set (CI sets it).
func TestReportJUnitXmllint(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("PAYSANDBOX_REQUIRE_XMLLINT") != "" {
			t.Fatal("xmllint is not on PATH (apt-get install libxml2-utils) and PAYSANDBOX_REQUIRE_XMLLINT is set")
		}
		t.Skip("xmllint is not on PATH: apt-get install libxml2-utils to validate the JUnit report against " + junitXSD)
	}
	_, body := junitReport(t)
	file := filepath.Join(t.TempDir(), "report.xml")
	require.NoError(t, os.WriteFile(file, body, 0o600))
	out, err := exec.Command(xmllint, "--noout", "--schema", junitXSD, file).CombinedOutput()
	assert.NoError(t, err, "xmllint refuses the report:\n%s\n%s", out, body)
}
