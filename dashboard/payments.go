package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// pageSize is the payments list's page; a fixed size keeps live refreshes
// from growing the page (no layout shift).
const pageSize = 25

type paymentFilter struct {
	Status     string
	OrderID    string
	CustomerID string
	MinAmount  string
	MaxAmount  string
	Cursor     string
}

type paymentsData struct {
	Filter    paymentFilter
	Payments  []*simulator.Payment
	Next      string // URL of the older page
	Prev      string // URL of the newer page
	Error     string
	Forbidden bool
}

// Query renders the filter (without cursor) as a query string.
func (f paymentFilter) Query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "orderId": f.OrderID, "customerId": f.CustomerID, "minAmount": f.MinAmount, "maxAmount": f.MaxAmount} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// parseFilter reads the list's query; a bad value is a message, not a failure.
func parseFilter(q url.Values) (paymentFilter, simulator.PaymentQuery, string) {
	f := paymentFilter{
		Status: strings.TrimSpace(q.Get("status")), OrderID: strings.TrimSpace(q.Get("orderId")),
		CustomerID: strings.TrimSpace(q.Get("customerId")), MinAmount: strings.TrimSpace(q.Get("minAmount")),
		MaxAmount: strings.TrimSpace(q.Get("maxAmount")), Cursor: q.Get("cursor"),
	}
	pq := simulator.PaymentQuery{Limit: pageSize, OrderID: f.OrderID}
	var problems []string
	if f.Status != "" {
		if !simulator.PaymentStatus(f.Status).Valid() {
			problems = append(problems, "the status "+strconv.Quote(f.Status)+" does not exist")
		} else {
			pq.Status = []simulator.PaymentStatus{simulator.PaymentStatus(f.Status)}
		}
	}
	if f.CustomerID != "" {
		pq.CustomerID = []string{f.CustomerID}
	}
	amount := func(name, v string) *int64 {
		if v == "" {
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			problems = append(problems, name+" must be a whole, non-negative number of minor units (cents)")
			return nil
		}
		return &n
	}
	pq.MinAmount = amount("the minimum amount", f.MinAmount)
	pq.MaxAmount = amount("the maximum amount", f.MaxAmount)
	if f.Cursor != "" {
		c, err := simulator.ParseCursor(f.Cursor)
		if err != nil {
			problems = append(problems, "the page link is not valid (start again from the first page)")
		} else {
			pq.Cursor = c
		}
	}
	msg := ""
	if len(problems) > 0 {
		msg = "Filters not applied: " + strings.Join(problems, "; ") + "."
	}
	return f, pq, msg
}

func (s *Server) paymentsPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	f, pq, msg := parseFilter(r.URL.Query())
	d := paymentsData{Filter: f, Error: msg}
	if !a.Key.Has(simulator.OperationOf(simulator.OpListPayments).Scope) {
		d.Forbidden = true
	} else if msg == "" {
		page, err := s.svc.ListPayments(a.Tenant, pq)
		if err != nil {
			d.Error = plain(err)
		}
		d.Payments = page.Payments
		base := f.Query()
		if page.Next != nil {
			base.Set("cursor", page.Next.Encode())
			d.Next = Prefix + "/payments?" + base.Encode()
		}
		if page.Prev != nil {
			base.Set("cursor", page.Prev.Encode())
			d.Prev = Prefix + "/payments?" + base.Encode()
		}
	}
	s.render(w, r, http.StatusOK, "payments", &view{Title: "Payments", Nav: "payments", Live: "payments", Data: d})
}
