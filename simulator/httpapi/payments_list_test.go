package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/internal/apitest"
	"github.com/paysandbox/paysandbox/simulator"
)

// listIDs reads the ids of a GET /payments page, in order.
func listIDs(r *resp) []string {
	out := []string{}
	data, _ := r.JSON["data"].([]any)
	for _, d := range data {
		out = append(out, dig(d, "id").(string))
	}
	return out
}

// vaultedPayer vaults a card for cust-bulk and returns a function that pays
// amount with it (one request per payment).
func vaultedPayer(a *testAPI) func(amount int64) string {
	a.t.Helper()
	pt := tokenIn(a, map[string]any{"orderId": "o"}, numOK)
	vt := a.must(200, "POST", "/payment-instruments/"+pt+"/vault", map[string]any{"customerId": "cust-bulk"}).Str("token")
	return func(amount int64) string {
		a.t.Helper()
		return a.must(200, "POST", "/payments", map[string]any{
			"paymentMethodToken": vt, "amount": amount, "currencyCode": "EUR", "customerId": "cust-bulk", "orderId": "bulk",
		}).Str("id")
	}
}

// TestPaymentListFilters: every filter of GET /payments, array filters as
// comma lists and repeated parameters, newest first by (date, id).
func TestPaymentListFilters(t *testing.T) {
	a := newTestAPI(t)
	at := func(minutes int) string {
		return simulator.FormatTime(testEpoch.Add(time.Duration(minutes) * time.Minute))
	}
	mk := func(currency, order, customer string, amount int64, number string) string {
		pt := tokenIn(a, map[string]any{"orderId": order, "currencyCode": currency, "amount": amount, "customerId": customer,
			"customer": map[string]any{"emailAddress": customer + "@Example.com"}, "metadata": map[string]any{"n": order}}, number)
		return a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt}).Str("id")
	}
	p1 := mk("EUR", "o-1", "c-1", 100, numOK) // AUTHORIZED at +0
	a.Clock.Advance(time.Minute)
	p2 := mk("USD", "o-2", "c-2", 200, numDecline) // DECLINED at +1
	a.Clock.Advance(time.Minute)
	p3 := mk("GBP", "o-3", "c-1", 300, numFail) // FAILED at +2
	a.Clock.Advance(time.Minute)
	p4 := mk("EUR", "o-4", "c-3", 400, numOK2) // SETTLED at +3
	a.must(200, "POST", "/payments/"+p4+"/capture", nil)
	p5 := mk("USD", "o-5", "c-2", 500, numOK) // CANCELLED at +3 (same instant: the id breaks the tie)
	a.must(200, "POST", "/payments/"+p5+"/cancel", nil)
	a.Clock.Advance(time.Minute)
	p6 := mk("EUR", "o-6", "c-1", 600, numChallenge) // PENDING at +4, no processor yet

	rows := []struct {
		name, query string
		want        []string
	}{
		{"no filter", "", []string{p6, p5, p4, p3, p2, p1}},
		{"status", "status=AUTHORIZED", []string{p1}},
		{"status comma list", "status=DECLINED,FAILED", []string{p3, p2}},
		{"status repeated", "status=DECLINED&status=FAILED", []string{p3, p2}},
		{"status both forms", "status=SETTLED,CANCELLED&status=PENDING", []string{p6, p5, p4}},
		{"status with spaces", "status=" + url.QueryEscape("SETTLED, CANCELLED"), []string{p5, p4}},
		{"currency_code", "currency_code=USD", []string{p5, p2}},
		{"currency_code list", "currency_code=EUR,GBP", []string{p6, p4, p3, p1}},
		{"order_id", "order_id=o-3", []string{p3}},
		{"order_id unknown", "order_id=o-9", []string{}},
		{"customer_id", "customer_id=c-1", []string{p6, p3, p1}},
		{"customer_id repeated", "customer_id=c-2&customer_id=c-3", []string{p5, p4, p2}},
		{"from_date inclusive", "from_date=" + at(2), []string{p6, p5, p4, p3}},
		{"to_date inclusive", "to_date=" + at(1), []string{p2, p1}},
		{"date window", "from_date=" + at(1) + "&to_date=" + at(3), []string{p5, p4, p3, p2}},
		{"min_amount inclusive", "min_amount=300", []string{p6, p5, p4, p3}},
		{"max_amount inclusive", "max_amount=200", []string{p2, p1}},
		{"amount window", "min_amount=200&max_amount=400", []string{p4, p3, p2}},
		{"last_4_digits", "last_4_digits=0002", []string{p2}},
		{"last_4_digits list", "last_4_digits=1111,4444", []string{p5, p4, p1}},
		{"processor", "processor=STRIPE", []string{p5, p4, p3, p2, p1}},
		{"processor other", "processor=ADYEN", []string{}},
		{"payment_method_type", "payment_method_type=PAYMENT_CARD", []string{p6, p5, p4, p3, p2, p1}},
		{"payment_method_type other", "payment_method_type=PAYPAL", []string{}},
		{"payment_method_type list", "payment_method_type=PAYPAL,PAYMENT_CARD", []string{p6, p5, p4, p3, p2, p1}},
		{"customer_email_address any case", "customer_email_address=c-1@example.COM", []string{p6, p3, p1}},
		{"customer_email_address list", "customer_email_address=C-2@EXAMPLE.COM,c-3@example.com", []string{p5, p4, p2}},
		{"customer_email_address exact", "customer_email_address=c-1", []string{}},
		{"merchant_id", "merchant_id=acct_sandbox_stripe", []string{p5, p4, p3, p2, p1}},
		{"merchant_id other", "merchant_id=sandbox_adyen", []string{}},
		{"paypal_email matches nothing", "paypal_email=c-1@example.com", []string{}},
		{"klarna_email matches nothing", "klarna_email=c-1@example.com", []string{}},
		{"combined", "status=AUTHORIZED,CANCELLED&currency_code=USD&customer_id=c-2", []string{p5}},
		{"combined empty", "status=AUTHORIZED&currency_code=USD", []string{}},
		{"limit", "limit=2", []string{p6, p5}},
		{"limit 100", "limit=100", []string{p6, p5, p4, p3, p2, p1}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			res := a.must(200, "GET", "/payments?"+r.query, nil)
			assert.Equal(t, r.want, listIDs(res))
			assert.Empty(t, res.Header.Get("Sandbox-Warning"), "every filter is applied, none ignored")
		})
	}

	t.Run("summary shape", func(t *testing.T) {
		res := a.must(200, "GET", "/payments?status=DECLINED,FAILED,PENDING&limit=3", nil)
		apitest.AssertGolden(t, "list_summary", res.Body)
	})

	bad := []struct{ query, path string }{
		{"limit=0", "$.limit"}, {"limit=101", "$.limit"}, {"limit=x", "$.limit"}, {"limit=-1", "$.limit"}, {"limit=1.5", "$.limit"},
		{"status=BOGUS", "$.status"}, {"status=AUTHORIZED,bogus", "$.status"},
		{"min_amount=x", "$.min_amount"}, {"max_amount=-5", "$.max_amount"},
		{"from_date=yesterday", "$.from_date"}, {"to_date=2026-13-01", "$.to_date"},
		{"cursor=garbage", "$.cursor"},
		{"payment_method_type=CARD", "$.payment_method_type"}, {"payment_method_type=PAYMENT_CARD,payment_card", "$.payment_method_type"},
	}
	for _, b := range bad {
		t.Run("422 "+b.query, func(t *testing.T) {
			assert.Equal(t, []string{b.path}, violations(t, a.req("GET", "/payments?"+b.query, nil), ""))
		})
	}
	t.Run("422 lists every bad parameter", func(t *testing.T) {
		assert.Equal(t, []string{"$.limit", "$.min_amount", "$.status"}, violations(t, a.req("GET", "/payments?limit=0&status=X&min_amount=y", nil), ""))
	})
	t.Run("another tenant sees none of them", func(t *testing.T) {
		res := tenantApp(a, nil).must(200, "GET", "/payments", nil)
		assert.Equal(t, []string{}, listIDs(res))
		assert.NotContains(t, res.JSON, "nextCursor")
		assert.NotContains(t, res.JSON, "prevCursor")
	})
}

// TestPaymentListCursors pages through 25 payments with limit 7 while new
// payments keep arriving: every payment is seen exactly once, newest first,
// and prevCursor goes back to the page before.
func TestPaymentListCursors(t *testing.T) {
	a := newTestAPI(t)
	pay := vaultedPayer(a)
	var created []string // oldest first
	for i := range 25 {
		if i%3 == 0 { // some share an instant: the id breaks the tie
			a.Clock.Advance(time.Second)
		}
		created = append(created, pay(int64(100+i)))
	}
	want := make([]string, len(created)) // newest first
	for i, id := range created {
		want[len(created)-1-i] = id
	}

	var pages [][]string
	var cursors []string // the cursor that fetched each page ("" for the first)
	var prevs []string
	cursor := ""
	for range 10 {
		q := "/payments?limit=7&customer_id=cust-bulk"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := a.must(200, "GET", q, nil)
		pages = append(pages, listIDs(r))
		cursors = append(cursors, cursor)
		prevs = append(prevs, r.Str("prevCursor"))
		cursor = r.Str("nextCursor")
		// New payments arrive between pages; they are newer than every page
		// still to come, so they never show up in this walk.
		pay(999)
		pay(999)
		if cursor == "" {
			break
		}
	}
	require.Len(t, pages, 4, "25 payments in pages of 7: %v", pages)
	var seen []string
	for i, p := range pages {
		if i < 3 {
			assert.Len(t, p, 7)
		}
		seen = append(seen, p...)
	}
	assert.Equal(t, want, seen, "every payment exactly once, newest first")
	assert.Empty(t, prevs[0], "the first page has nothing before it")

	for i := 1; i < len(pages); i++ {
		require.NotEmpty(t, prevs[i], "page %d has a prevCursor", i)
		back := a.must(200, "GET", "/payments?limit=7&customer_id=cust-bulk&cursor="+url.QueryEscape(prevs[i]), nil)
		assert.Equal(t, pages[i-1], listIDs(back), "prevCursor of page %d gives page %d", i, i-1)
		// ...and that page's nextCursor leads forward again.
		fwd := a.must(200, "GET", "/payments?limit=7&customer_id=cust-bulk&cursor="+url.QueryEscape(back.Str("nextCursor")), nil)
		assert.Equal(t, pages[i], listIDs(fwd))
	}

	t.Run("the newcomers are before the first page", func(t *testing.T) {
		r := a.must(200, "GET", "/payments?limit=7&customer_id=cust-bulk", nil)
		first := listIDs(r)
		assert.NotContains(t, first, want[0])
		second := a.must(200, "GET", "/payments?limit=7&customer_id=cust-bulk&cursor="+url.QueryEscape(r.Str("nextCursor")), nil)
		assert.Equal(t, want[0], listIDs(second)[1], "8 newcomers, then the newest of the 25")
	})

	t.Run("cursors respect filters", func(t *testing.T) {
		var all []string
		q := "/payments?limit=3&max_amount=110&customer_id=cust-bulk"
		cur := ""
		for range 10 {
			path := q
			if cur != "" {
				path += "&cursor=" + url.QueryEscape(cur)
			}
			r := a.must(200, "GET", path, nil)
			all = append(all, listIDs(r)...)
			if cur = r.Str("nextCursor"); cur == "" {
				break
			}
		}
		assert.Equal(t, want[len(want)-11:], all, "amounts 100..110, newest first")
	})

	t.Run("cursors are opaque", func(t *testing.T) {
		r := a.must(200, "GET", "/payments?limit=7", nil)
		c := r.Str("nextCursor")
		require.NotEmpty(t, c)
		for _, id := range created {
			assert.False(t, strings.Contains(c, id), "the cursor does not spell out an id")
		}
	})
}
