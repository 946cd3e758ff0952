package store

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/paysandbox/paysandbox/simulator"
)

// listPrefilter spares ListPayments the reading of payments a query cannot
// match. It only ever rules payments out; matches decides on the decoded
// payment, so answers are the same with or without it.
//   - Dates: the payx: keys carry the payment's date (stamp), so a walk
//     newest first stops at the first key older than FromDate, and one
//     oldest first at the first key newer than ToDate; keys outside the
//     other bound are passed over without reading the payment.
//   - Exact fields (status, currencyCode, customerId, orderId, last 4
//     digits, processor name and merchant id, payment method type, the
//     customer's e-mail address folded): each payx: entry holds them
//     (listIndexValue, written with the payment), so a payment whose entry
//     has none of the wanted values of a filter is passed over without
//     reading it. The amount is there too, for min_amount and max_amount.
//     An entry that ends before a field (written by a build that listed
//     fewer) rules nothing out from that field on.
//
// A filter that matches nothing reads every entry and no payment: over bench
// seed's tenant of 1,000,000 payments, once open, the first page of
// customer_email_address, merchant_id or order_id costs the server 97-100
// ms of CPU (min_amount 121 ms; an unfiltered page 7 ms), on the 2-core VM
// at a load average of 33, where the answer took 0.3-0.7 s of wall time.
type listPrefilter struct {
	from, to   string            // stamps of FromDate and ToDate ("" none)
	want       [lfCount][]string // per listed field: the values one of which it must have (nil: any)
	minAmount  *int64
	maxAmount  *int64
	last       int  // the last field a filter is on (-1: none)
	descending bool // the walk goes newest first
}

// The fields a payx: entry lists, in order (a build only ever appends).
const (
	lfStatus = iota
	lfCurrency
	lfCustomer
	lfOrder
	lfLast4
	lfProcessor
	lfMerchant
	lfMethodType
	lfEmail  // simulator.FoldEmail of customer.emailAddress
	lfAmount // decimal
	lfCount
)

// listIndexValue is p's payx: entry: the listed fields, each a uvarint
// length and the bytes.
func listIndexValue(p *simulator.Payment) string {
	var proc, mid, email string
	if p.Processor != nil {
		proc, mid = p.Processor.Name, p.Processor.ProcessorMerchantID
	}
	if p.Customer != nil {
		email = simulator.FoldEmail(p.Customer.EmailAddress)
	}
	fields := [lfCount]string{string(p.Status), p.CurrencyCode, p.CustomerID, p.OrderID,
		p.PaymentMethod.Data.Last4Digits, proc, mid, p.PaymentMethod.PaymentMethodType, email, strconv.FormatInt(p.Amount, 10)}
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
	f.want[lfLast4] = q.Last4
	f.want[lfProcessor] = q.Processor
	f.want[lfMerchant] = q.MerchantID
	f.want[lfMethodType] = q.PaymentMethodType
	for _, e := range q.CustomerEmail {
		f.want[lfEmail] = append(f.want[lfEmail], simulator.FoldEmail(e))
	}
	f.minAmount, f.maxAmount = q.MinAmount, q.MaxAmount
	f.last = -1
	for i, w := range f.want {
		if len(w) > 0 {
			f.last = i
		}
	}
	if f.minAmount != nil || f.maxAmount != nil {
		f.last = lfAmount
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
// exact filter and the amount bounds. It reads the entry up to the last
// field a filter is on.
func (f *listPrefilter) may(v string) bool {
	for i := 0; i <= f.last; i++ {
		if v == "" {
			return true // not written yet, or by a build that listed fewer fields: the payment decides
		}
		n, k := uint64(v[0]), 1 // a field under 128 bytes: its length is one byte
		if n >= 0x80 {
			n, k = binary.Uvarint([]byte(v[:min(len(v), binary.MaxVarintLen64)]))
		}
		if k <= 0 || uint64(len(v)-k) < n {
			return true
		}
		field := v[k : k+int(n)]
		v = v[k+int(n):]
		if len(f.want[i]) > 0 && !slices.Contains(f.want[i], field) {
			return false
		}
		if i == lfAmount && (f.minAmount != nil || f.maxAmount != nil) {
			a, err := strconv.ParseInt(field, 10, 64)
			if err == nil && (f.minAmount != nil && a < *f.minAmount || f.maxAmount != nil && a > *f.maxAmount) {
				return false
			}
		}
	}
	return true
}
