package store

import (
	"encoding/binary"
	"slices"

	"github.com/paysandbox/paysandbox/simulator"
)

// listPrefilter spares ListPayments the reading of payments a query cannot
// match. It only ever rules payments out; matches decides on the decoded
// payment, so answers are the same with or without it.
//   - Dates: the payx: keys carry the payment's date (stamp), so a walk
//     newest first stops at the first key older than FromDate, and one
//     oldest first at the first key newer than ToDate; keys outside the
//     other bound are passed over without reading the payment.
//   - Exact fields (status, currencyCode, customerId, orderId): each payx:
//     entry holds them (listIndexValue, written with the payment), so a
//     payment whose entry has none of the wanted values of a filter is
//     passed over without reading it. An empty entry (not yet written)
//     rules nothing out.
type listPrefilter struct {
	from, to   string      // stamps of FromDate and ToDate ("" none)
	want       [4][]string // per listed field: the values one of which it must have (nil: any)
	descending bool        // the walk goes newest first
}

// The fields a payx: entry lists, in order.
const (
	lfStatus = iota
	lfCurrency
	lfCustomer
	lfOrder
	lfCount
)

// listIndexValue is p's payx: entry: the listed fields, each a uvarint
// length and the bytes.
func listIndexValue(p *simulator.Payment) string {
	fields := [lfCount]string{string(p.Status), p.CurrencyCode, p.CustomerID, p.OrderID}
	n := 0
	for _, f := range fields {
		n += len(f) + 1
	}
	b := make([]byte, 0, n+4)
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return string(b)
}

type dateVerdict int

const (
	dateRead dateVerdict = iota // read the payment
	dateSkip                    // outside the range: next key
	dateStop                    // outside the range from here on: stop the walk
)

func newListPrefilter(q simulator.PaymentQuery) *listPrefilter {
	f := &listPrefilter{}
	if q.FromDate != nil {
		f.from = stamp(*q.FromDate)
	}
	if q.ToDate != nil {
		// A key's stamp is its date in whole microseconds; a payment later than
		// ToDate within ToDate's own microsecond has ToDate's stamp, so only
		// stamps above it are out.
		f.to = stamp(*q.ToDate)
	}
	for _, st := range q.Status {
		f.want[lfStatus] = append(f.want[lfStatus], string(st))
	}
	f.want[lfCurrency] = q.CurrencyCode
	f.want[lfCustomer] = q.CustomerID
	if q.OrderID != "" {
		f.want[lfOrder] = []string{q.OrderID}
	}
	return f
}

// dated judges a payx: key by its date; rest is the key after the tenant's
// payx: prefix ("<stamp>:<id>").
func (f *listPrefilter) dated(rest string) dateVerdict {
	if f.from == "" && f.to == "" || len(rest) < 20 {
		return dateRead
	}
	st := rest[:20]
	if f.from != "" && st < f.from {
		if f.descending {
			return dateStop
		}
		return dateSkip
	}
	if f.to != "" && st > f.to {
		if f.descending {
			return dateSkip
		}
		return dateStop
	}
	return dateRead
}

// filters reports whether any exact filter is set.
func (f *listPrefilter) filters() bool {
	for _, w := range f.want {
		if len(w) > 0 {
			return true
		}
	}
	return false
}

// may reports whether the payment whose payx: entry is v can match every
// exact filter.
func (f *listPrefilter) may(v string) bool {
	for i := range lfCount {
		if v == "" {
			return true // not written yet (or malformed): the payment decides
		}
		n, k := binary.Uvarint([]byte(v[:min(len(v), binary.MaxVarintLen64)]))
		if k <= 0 || uint64(len(v)-k) < n {
			return true
		}
		field := v[k : k+int(n)]
		v = v[k+int(n):]
		if len(f.want[i]) > 0 && !slices.Contains(f.want[i], field) {
			return false
		}
	}
	return true
}
