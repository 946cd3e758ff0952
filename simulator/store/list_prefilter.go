package store

import (
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// listPrefilter spares ListPayments the decoding of payments a query cannot
// match. It only ever rules payments out; matches decides on the decoded
// payment, so answers are the same with or without it.
//   - Dates: the payx: keys carry the payment's date (stamp), so a walk
//     newest first stops at the first key older than FromDate, and one
//     oldest first at the first key newer than ToDate; keys outside the
//     other bound are passed over without reading the payment.
//   - Exact fields (orderId, status, currencyCode, customerId): a stored
//     payment has them as top-level `"name":"value"` members, so a record
//     that contains none of the wanted members cannot match. Values are only used when made of
//     characters every JSON encoder writes as they are; anything else leaves
//     the decision to matches.
type listPrefilter struct {
	from, to   string     // stamps of FromDate and ToDate ("" none)
	needles    [][]string // per filter: members of which the record must contain one
	descending bool       // the walk goes newest first
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
	f.add("orderId", q.OrderID)
	statuses := make([]string, len(q.Status))
	for i, st := range q.Status {
		statuses[i] = string(st)
	}
	f.add("status", statuses...)
	f.add("currencyCode", q.CurrencyCode...)
	f.add("customerId", q.CustomerID...)
	return f
}

// add requires one of values as the member name, when every value is plain.
func (f *listPrefilter) add(name string, values ...string) {
	var members []string
	for _, v := range values {
		if v == "" {
			continue
		}
		if !plainJSON(v) {
			return
		}
		members = append(members, `"`+name+`":"`+v+`"`)
	}
	if len(members) > 0 {
		f.needles = append(f.needles, members)
	}
}

// plainJSON reports whether encoding/json writes s inside quotes unchanged
// (with or without HTML escaping).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
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

// may reports whether the stored record raw can match every exact filter.
func (f *listPrefilter) may(raw string) bool {
	for _, members := range f.needles {
		found := false
		for _, m := range members {
			if strings.Contains(raw, m) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
