package simulator

import "maps"

// Clone deep-copies a payment. Nothing of the copy is shared with p, so
// either may be changed freely (the store keeps recently read payments
// decoded and hands out clones of them).
func (p *Payment) Clone() *Payment {
	if p == nil {
		return nil
	}
	c := *p
	c.Customer = p.Customer.clone()
	c.Order = p.Order.clone()
	c.Metadata = cloneMap(p.Metadata)
	c.PaymentMethod.ThreeDSecure = clonePtr(p.PaymentMethod.ThreeDSecure)
	c.Processor = clonePtr(p.Processor)
	if p.Transactions != nil {
		c.Transactions = make([]Transaction, len(p.Transactions))
		for i, t := range p.Transactions {
			t.ProcessorStatusReason = clonePtr(t.ProcessorStatusReason)
			t.Allocations = maps.Clone(t.Allocations)
			if t.Events != nil {
				evs := make([]TransactionEvent, len(t.Events))
				for j, e := range t.Events {
					e.Amount, e.Final = clonePtr(e.Amount), clonePtr(e.Final)
					evs[j] = e
				}
				t.Events = evs
			}
			c.Transactions[i] = t
		}
	}
	c.Required = clonePtr(p.Required)
	c.StatusReason = clonePtr(p.StatusReason)
	if r := p.RiskData; r != nil {
		c.RiskData = newRiskData(r.FraudChecks, r.CVVCheck, r.AVSCheck)
	}
	c.Plan = p.Plan.clone()
	c.ThreeDS = clonePtr(p.ThreeDS)
	c.Timeout = clonePtr(p.Timeout)
	return &c
}

func (pl *Plan) clone() *Plan {
	if pl == nil {
		return nil
	}
	o := *pl
	if pl.Steps != nil {
		o.Steps = make([]AuthStep, len(pl.Steps))
		for i, st := range pl.Steps {
			st.Reason = clonePtr(st.Reason)
			o.Steps[i] = st
		}
	}
	if pl.Capture != nil {
		c := *pl.Capture
		c.Reason = clonePtr(c.Reason)
		o.Capture = &c
	}
	if pl.Refund != nil {
		r := *pl.Refund
		r.Reason = clonePtr(r.Reason)
		o.Refund = &r
	}
	if pl.Dispute != nil {
		d := *pl.Dispute
		if d.Then != nil {
			d.Then = append([]DisputeStep(nil), d.Then...)
		}
		o.Dispute = &d
	}
	o.Account = clonePtr(pl.Account)
	return &o
}

func (c *Customer) clone() *Customer {
	if c == nil {
		return nil
	}
	o := *c
	o.BillingAddress, o.ShippingAddress = clonePtr(c.BillingAddress), clonePtr(c.ShippingAddress)
	return &o
}

func (o *Order) clone() *Order {
	if o == nil {
		return nil
	}
	n := *o
	if o.LineItems != nil {
		n.LineItems = make([]LineItem, len(o.LineItems))
		for i, li := range o.LineItems {
			li.Amount, li.Quantity = clonePtr(li.Amount), clonePtr(li.Quantity)
			li.DiscountAmount, li.TaxAmount = clonePtr(li.DiscountAmount), clonePtr(li.TaxAmount)
			if li.ProductData != nil {
				pd := *li.ProductData
				pd.Weight = clonePtr(pd.Weight)
				li.ProductData = &pd
			}
			n.LineItems[i] = li
		}
	}
	if o.Fees != nil {
		n.Fees = make([]Fee, len(o.Fees))
		for i, f := range o.Fees {
			f.Amount = clonePtr(f.Amount)
			n.Fees[i] = f
		}
	}
	if o.Shipping != nil {
		s := *o.Shipping
		s.Amount = clonePtr(s.Amount)
		n.Shipping = &s
	}
	return &n
}

// clonePtr copies the value behind a pointer to a struct without pointers
// (or a scalar).
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneMap deep-copies free-form JSON data (metadata).
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneAny(v)
	}
	return out
}

func cloneAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneAny(e)
		}
		return out
	}
	return v // strings, numbers, bools, nil: immutable
}
