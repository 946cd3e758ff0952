package store_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestListPrefilterChangesNoAnswer: queries with date bounds, exact
// filters (the vendor's every one) and amount bounds (which the prefilter uses to skip payments without decoding them)
// answer exactly the payments a walk over every payment finds, page by page
// in both directions; values with characters JSON escapes, dates within one
// microsecond of a bound and metadata that imitates a member are included.
func TestListPrefilterChangesNoAnswer(t *testing.T) {
	db := openDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	orders := []string{"o-1", "o-2", "a<b", "é", `q"t`, "o-1 "}
	statuses := []simulator.PaymentStatus{simulator.StatusAuthorized, simulator.StatusDeclined, simulator.StatusSettled}
	currencies := []string{"EUR", "USD"}
	customers := []string{"", "c-1", "c-2", "c&3"}
	emails := []string{"", "ann@example.com", "Ann@Example.com", "bob@example.com"}
	last4s := []string{"1111", "0002"}
	accounts := []simulator.ProcessorState{{Name: "STRIPE", ProcessorMerchantID: "acct_a"}, {Name: "ADYEN", ProcessorMerchantID: "acct_b"}, {Name: "STRIPE", ProcessorMerchantID: "acct_c"}}
	methods := []string{"PAYMENT_CARD", "PAYPAL"}
	base := time.Unix(1700000000, 0).UTC()
	var all []*simulator.Payment
	byID := map[string]*simulator.Payment{}
	for i := range 240 {
		p := payment(fmt.Sprintf("p%03d", i), statuses[rng.IntN(len(statuses))])
		p.OrderID = orders[rng.IntN(len(orders))]
		p.CurrencyCode = currencies[rng.IntN(len(currencies))]
		p.CustomerID = customers[rng.IntN(len(customers))]
		p.Date = base.Add(time.Duration(rng.IntN(40)) * time.Second).Add(time.Duration(rng.IntN(3)) * time.Microsecond)
		p.Metadata = map[string]any{"k": fmt.Sprintf(`"orderId":"%s"`, orders[rng.IntN(len(orders))])}
		if e := emails[rng.IntN(len(emails))]; e != "" {
			p.Customer = &simulator.Customer{EmailAddress: e}
		}
		p.PaymentMethod.Data.Last4Digits = last4s[rng.IntN(len(last4s))]
		p.PaymentMethod.PaymentMethodType = methods[rng.IntN(len(methods))]
		if n := rng.IntN(len(accounts) + 1); n < len(accounts) {
			acct := accounts[n]
			p.Processor = &acct
		}
		p.Amount = int64(100 * rng.IntN(5))
		require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
		all = append(all, p)
		byID[p.ID] = p
	}
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	inFold := func(list []string, v string) bool {
		return len(list) == 0 || slices.ContainsFunc(list, func(w string) bool { return strings.EqualFold(w, v) })
	}
	want := func(q simulator.PaymentQuery) []string {
		var ids []string
		for _, p := range all {
			var proc simulator.ProcessorState
			if p.Processor != nil {
				proc = *p.Processor
			}
			email := ""
			if p.Customer != nil {
				email = p.Customer.EmailAddress
			}
			if (len(q.Status) == 0 || slices.Contains(q.Status, p.Status)) && in(q.CurrencyCode, p.CurrencyCode) && in(q.CustomerID, p.CustomerID) &&
				(q.OrderID == "" || q.OrderID == p.OrderID) &&
				(q.FromDate == nil || !p.Date.Before(*q.FromDate)) && (q.ToDate == nil || !p.Date.After(*q.ToDate)) &&
				in(q.Last4, p.PaymentMethod.Data.Last4Digits) && in(q.Processor, proc.Name) && in(q.MerchantID, proc.ProcessorMerchantID) &&
				in(q.PaymentMethodType, p.PaymentMethod.PaymentMethodType) && inFold(q.CustomerEmail, email) &&
				(q.MinAmount == nil || p.Amount >= *q.MinAmount) && (q.MaxAmount == nil || p.Amount <= *q.MaxAmount) &&
				len(q.PaypalEmail) == 0 && len(q.KlarnaEmail) == 0 {
				ids = append(ids, p.ID)
			}
		}
		slices.SortFunc(ids, func(a, b string) int { // newest first, then id descending
			pa, pb := byID[a], byID[b]
			if c := pb.Date.Compare(pa.Date); c != 0 {
				return c
			}
			if a > b {
				return -1
			}
			return 1
		})
		return ids
	}
	list := func(q simulator.PaymentQuery) simulator.PaymentPage {
		var page simulator.PaymentPage
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { page, err = tx.ListPayments("t1", q); return }))
		return page
	}
	nanos := []time.Duration{0, 1000, 1500, 2000, 2300} // on and between the payments' microseconds
	for i := range 300 {
		q := simulator.PaymentQuery{Limit: 1 + rng.IntN(30)}
		if rng.IntN(2) == 0 {
			q.OrderID = orders[rng.IntN(len(orders))]
		}
		if rng.IntN(2) == 0 {
			q.Status = []simulator.PaymentStatus{statuses[rng.IntN(len(statuses))]}
		}
		if rng.IntN(3) == 0 {
			q.CurrencyCode = []string{currencies[rng.IntN(len(currencies))]}
		}
		if rng.IntN(3) == 0 {
			q.CustomerID = []string{customers[1+rng.IntN(len(customers)-1)], customers[1+rng.IntN(len(customers)-1)]}
		}
		if rng.IntN(4) == 0 {
			q.CustomerEmail = []string{strings.ToUpper(emails[1+rng.IntN(len(emails)-1)])}
		}
		if rng.IntN(4) == 0 {
			q.Last4 = []string{last4s[rng.IntN(len(last4s))]}
		}
		if rng.IntN(4) == 0 {
			q.Processor = []string{accounts[rng.IntN(len(accounts))].Name}
		}
		if rng.IntN(4) == 0 {
			q.MerchantID = []string{accounts[rng.IntN(len(accounts))].ProcessorMerchantID, "acct_none"}
		}
		if rng.IntN(4) == 0 {
			q.PaymentMethodType = []string{methods[rng.IntN(len(methods))]}
		}
		if rng.IntN(4) == 0 {
			lo := int64(100 * rng.IntN(5))
			q.MinAmount = &lo
		}
		if rng.IntN(4) == 0 {
			hi := int64(100 * rng.IntN(5))
			q.MaxAmount = &hi
		}
		if rng.IntN(20) == 0 {
			q.PaypalEmail = []string{"ann@example.com"}
		}
		if rng.IntN(20) == 0 {
			q.KlarnaEmail = []string{"ann@example.com"}
		}
		if rng.IntN(2) == 0 {
			from := base.Add(time.Duration(rng.IntN(40))*time.Second + nanos[rng.IntN(len(nanos))])
			q.FromDate = &from
		}
		if rng.IntN(2) == 0 {
			to := base.Add(time.Duration(rng.IntN(40))*time.Second + nanos[rng.IntN(len(nanos))])
			q.ToDate = &to
		}
		exp := want(q)
		// forward through every page, then back from the last one
		var got []string
		var pages []simulator.PaymentPage
		for page := list(q); ; {
			pages = append(pages, page)
			for _, p := range page.Payments {
				got = append(got, p.ID)
			}
			if page.Next == nil {
				break
			}
			q2 := q
			q2.Cursor = page.Next
			page = list(q2)
		}
		require.Equal(t, exp, got, "query %d: %+v", i, q)
		for j := len(pages) - 1; j > 0; j-- {
			q2 := q
			q2.Cursor = pages[j].Prev
			require.NotNil(t, q2.Cursor, "query %d page %d has a previous page", i, j)
			back := list(q2)
			require.Equal(t, ids(pages[j-1].Payments), ids(back.Payments), "query %d: back to page %d", i, j-1)
		}
	}
}

func ids(ps []*simulator.Payment) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// BenchmarkListPayments lists a page of 10,000 payments with and without
// exact filters:
//
//	go test ./simulator/store -run '^$' -bench ListPayments
func BenchmarkListPayments(b *testing.B) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(b, err)
	b.Cleanup(func() { _ = db.Close() })
	base := time.Unix(1700000000, 0).UTC()
	statuses := []simulator.PaymentStatus{simulator.StatusAuthorized, simulator.StatusAuthorized, simulator.StatusSettled, simulator.StatusDeclined}
	require.NoError(b, db.Update(func(tx simulator.Tx) error {
		for i := range 10000 {
			p := payment(fmt.Sprintf("p%05d", i), statuses[i%len(statuses)])
			p.Date, p.DateUpdated = base.Add(time.Duration(i)*time.Second), base
			p.OrderID, p.CurrencyCode, p.CustomerID = fmt.Sprintf("order-%05d", i), "EUR", fmt.Sprintf("cust-%d", i%50)
			if err := tx.PutPayment(p); err != nil {
				return err
			}
		}
		return nil
	}))
	queries := []struct {
		name string
		q    simulator.PaymentQuery
	}{
		{"all", simulator.PaymentQuery{Limit: 25}},
		{"status_DECLINED", simulator.PaymentQuery{Limit: 25, Status: []simulator.PaymentStatus{simulator.StatusDeclined}}},
		{"order_id", simulator.PaymentQuery{Limit: 25, OrderID: "order-00042"}},
		{"customer", simulator.PaymentQuery{Limit: 25, CustomerID: []string{"cust-7"}}},
		{"customer_email_none", simulator.PaymentQuery{Limit: 25, CustomerEmail: []string{"nobody@example.com"}}},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if err := db.View(func(tx simulator.Tx) error { _, err := tx.ListPayments("t1", q.q); return err }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A payment whose list entry holds nothing (as a file's entries before the
// list fields were indexed) is read and judged by its record, not skipped.
func TestListEntryWithoutFields(t *testing.T) {
	db := openDB(t)
	p := payment("p1", simulator.StatusDeclined)
	p.OrderID, p.CurrencyCode, p.CustomerID = "o-1", "EUR", "c-1"
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
	key := fmt.Sprintf("payx:%020d:p1", p.Date.UnixMicro())
	var before string
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool {
		if k == key {
			before = v
		}
		return true
	}))
	require.NotEmpty(t, before, "the entry lists the payment's fields")
	require.NoError(t, db.PutRaw("t1", [][2]string{{key, ""}}))
	q := simulator.PaymentQuery{Limit: 10, OrderID: "o-1", CustomerID: []string{"c-1"}, CurrencyCode: []string{"EUR"},
		Status: []simulator.PaymentStatus{simulator.StatusDeclined}}
	for _, tc := range []struct {
		name string
		q    simulator.PaymentQuery
		want []string
	}{
		{"matching", q, []string{"p1"}},
		{"other order", simulator.PaymentQuery{Limit: 10, OrderID: "o-2"}, []string{}},
	} {
		var page simulator.PaymentPage
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { page, err = tx.ListPayments("t1", tc.q); return }))
		assert.Equal(t, tc.want, ids(page.Payments), tc.name)
	}
}

// A list entry written by a build that listed fewer fields (status,
// currency, customer and order id only) rules nothing out from the fields
// it lacks: the payment's record decides them.
func TestListEntryOfFewerFields(t *testing.T) {
	db := openDB(t)
	p := payment("p1", simulator.StatusAuthorized)
	p.OrderID, p.CurrencyCode = "o-1", "EUR"
	p.Customer = &simulator.Customer{EmailAddress: "Ann@example.com"}
	p.Processor = &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_a"}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
	var old []byte
	for _, f := range []string{"AUTHORIZED", "EUR", "", "o-1"} {
		old = binary.AppendUvarint(old, uint64(len(f)))
		old = append(old, f...)
	}
	require.NoError(t, db.PutRaw("t1", [][2]string{{fmt.Sprintf("payx:%020d:p1", p.Date.UnixMicro()), string(old)}}))
	for _, tc := range []struct {
		name string
		q    simulator.PaymentQuery
		want []string
	}{
		{"e-mail", simulator.PaymentQuery{Limit: 10, CustomerEmail: []string{"ann@EXAMPLE.com"}}, []string{"p1"}},
		{"other e-mail", simulator.PaymentQuery{Limit: 10, CustomerEmail: []string{"bob@example.com"}}, []string{}},
		{"merchant", simulator.PaymentQuery{Limit: 10, MerchantID: []string{"acct_a"}}, []string{"p1"}},
		{"amount", simulator.PaymentQuery{Limit: 10, MinAmount: ptr(int64(101))}, []string{}},
		{"order and status", simulator.PaymentQuery{Limit: 10, OrderID: "o-2"}, []string{}},
	} {
		var page simulator.PaymentPage
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { page, err = tx.ListPayments("t1", tc.q); return }))
		assert.Equal(t, tc.want, ids(page.Payments), tc.name)
	}
}

func ptr[T any](v T) *T { return &v }
