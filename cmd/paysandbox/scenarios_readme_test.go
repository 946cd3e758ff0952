package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeRow is one row of the README's scenario table.
type readmeRow struct {
	cards          []string
	amounts        []int64
	expiry         []string // "MM/YYYY": a card of the first row expiring then
	rule           string   // "" for (none)
	status, detail string   // e.g. AUTHORIZED, STRIPE
	timeout        bool     // "504, then STATUS"
}

var readmeAuth = regexp.MustCompile(`^(504, then )?([A-Z]+)(?: \(([A-Z0-9_]+)\))?$`)

// readmeScenarioTable parses the table between the scenario-table markers;
// a row it cannot read fails the test (no row is skipped).
func readmeScenarioTable(t *testing.T) []readmeRow {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	s := string(raw)
	begin, end := strings.Index(s, "<!-- scenario-table:begin -->"), strings.Index(s, "<!-- scenario-table:end -->")
	require.True(t, begin >= 0 && end > begin, "README has no scenario table")
	var rows []readmeRow
	for _, line := range strings.Split(s[begin:end], "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Card or amount") {
			continue
		}
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		require.GreaterOrEqual(t, len(cols), 3, "row %q", line)
		var r readmeRow
		if e, ok := strings.CutPrefix(cols[0], "expiry "); ok { // "expiry 01/2020 (any card ...)"
			m := regexp.MustCompile(`^([0-9]{2}/[0-9]{4})\b`).FindStringSubmatch(e)
			require.NotNil(t, m, "row %q", line)
			r.expiry = append(r.expiry, m[1])
		} else if a, ok := strings.CutPrefix(cols[0], "amount "); ok {
			bounds := strings.Split(a, "-") // "7000-7099": both ends are checked
			for _, v := range bounds {
				n, err := strconv.ParseInt(v, 10, 64)
				require.NoError(t, err, "row %q", line)
				r.amounts = append(r.amounts, n)
			}
		} else {
			for _, c := range strings.Split(cols[0], ", ") {
				require.Regexp(t, `^[0-9]{12,19}$`, c, "row %q", line)
				r.cards = append(r.cards, c)
			}
		}
		if cols[1] != "(none)" {
			r.rule = strings.Trim(cols[1], "`")
		}
		m := readmeAuth.FindStringSubmatch(cols[2])
		require.NotNil(t, m, "authorization column of %q", line)
		r.timeout, r.status, r.detail = m[1] != "", m[2], m[3]
		rows = append(rows, r)
	}
	require.NotEmpty(t, rows)
	return rows
}

// TestReadmeScenarioTable: every card and amount in the README's table gets
// the rule and the authorization the table claims.
func TestReadmeScenarioTable(t *testing.T) {
	cfg := testConfig()
	cfg.RequestTimeout = 200 * time.Millisecond // the timeout rows hold until request_timeout
	root := startApp(t, cfg)
	a := root.asNewTenant()
	check := func(t *testing.T, r readmeRow, amount int64, card string, expiry string) {
		key := "X-Idempotency-Key: readme-" + card + "-" + strconv.FormatInt(amount, 10) + "-" + expiry
		pay := func() *resp { return a.payFull(amount, card, nil, key) }
		if month, year, ok := strings.Cut(expiry, "/"); ok {
			pay = func() *resp {
				ct := a.session(plainSession(amount))
				tok := a.must(200, "POST", "/client/payment-instruments", cardWith(card, map[string]any{"expirationMonth": month, "expirationYear": year}), "X-Client-Token: "+ct).Str("token")
				return a.req("POST", "/payments", map[string]any{"paymentMethodToken": tok}, key)
			}
		}
		p := pay()
		var id string
		if r.timeout {
			require.Equal(t, 504, p.Status, "%s", p.Body)
			again := pay()
			require.Equal(t, 409, again.Status)
			id, _ = again.Err()["paymentId"].(string)
			a.advance("2m")
			p = a.payment(id)
		} else {
			require.Equal(t, 200, p.Status, "%s", p.Body)
			id = p.Str("id")
		}
		assert.Equal(t, r.status, p.Str("status"))
		switch r.status {
		case "AUTHORIZED":
			if r.detail != "" {
				assert.Equal(t, r.detail, sub(p.JSON, "processor")["name"])
			}
		case "DECLINED", "FAILED":
			if r.detail != "" {
				assert.Equal(t, r.detail, sub(p.JSON, "statusReason")["code"])
			}
		case "PENDING":
			assert.Equal(t, r.detail, sub(p.JSON, "requiredAction")["name"])
		}
		ex := a.must(200, "GET", "/_sandbox/payments/"+id+"/explain", nil)
		if r.rule == "" {
			assert.Nil(t, ex.JSON["matched"])
		} else {
			assert.Equal(t, r.rule, ex.JSON["matched"])
		}
	}
	for _, r := range readmeScenarioTable(t) {
		for _, c := range r.cards {
			t.Run(c, func(t *testing.T) { check(t, r, 1000, c, "") })
		}
		for _, amt := range r.amounts {
			t.Run(strconv.FormatInt(amt, 10), func(t *testing.T) { check(t, r, amt, visa, "") })
		}
		for _, e := range r.expiry {
			t.Run("expiry "+e, func(t *testing.T) { check(t, r, 1000, visa, e) })
		}
	}
}
