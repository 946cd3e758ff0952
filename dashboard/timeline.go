package dashboard

import (
	"fmt"
	"slices"

	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// timelineItem is one line of a payment's timeline.
type timelineItem struct {
	At      time.Time
	Kind    string // status | capture | refund | 3ds | webhook | request
	Title   string
	Detail  string
	Status  simulator.PaymentStatus // for status changes
	Webhook *WebhookEvent
	Request *JournalEntry
	seq     int
}

// buildTimeline merges what the payment record says (status changes,
// captures, refunds, 3DS) with webhook deliveries and journal requests (both
// newest first, as their sources answer them),
// oldest first; items at the same instant keep the order they were added
// (record, then requests, then webhooks: a request causes a change that
// causes an event).
func buildTimeline(p *simulator.Payment, hooks []WebhookEvent, reqs []JournalEntry) []timelineItem {
	tl := &timeline{last: simulator.StatusPending}
	tl.addRecord(p)
	// Both sources list newest first: add them oldest first, so that items at
	// one instant (a manual or unmoved tenant clock) read in the order they happened.
	for i := len(reqs) - 1; i >= 0; i-- {
		r := &reqs[i]
		tl.add(timelineItem{At: r.At, Kind: "request", Title: fmt.Sprintf("%s %s → %d", r.Method, r.Path, r.Status), Request: r})
	}
	for i := len(hooks) - 1; i >= 0; i-- {
		h := &hooks[i]
		tl.add(timelineItem{At: h.CreatedAt, Kind: "webhook", Title: "Webhook " + h.Type + ": " + h.Status,
			Detail: fmt.Sprintf("%d attempt(s)", len(h.Attempts)), Webhook: h})
	}
	out := tl.items
	slices.SortStableFunc(out, func(a, b timelineItem) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
	return out
}

// timeline collects the items of buildTimeline in the order they are added;
// last is the last status it showed.
type timeline struct {
	items []timelineItem
	last  simulator.PaymentStatus
}

// add appends it, numbered by its position.
func (tl *timeline) add(it timelineItem) { it.seq = len(tl.items); tl.items = append(tl.items, it) }

// status adds a change to status st.
func (tl *timeline) status(at time.Time, st simulator.PaymentStatus, detail string) {
	tl.add(timelineItem{At: at, Kind: "status", Status: st, Title: "Status: " + string(st), Detail: detail})
	tl.last = st
}

// addRecord adds what the payment record says: its creation, 3DS, each
// transaction's items, and the current status when no item showed it.
func (tl *timeline) addRecord(p *simulator.Payment) {
	tl.add(timelineItem{At: p.Date, Kind: "status", Status: simulator.StatusPending, Title: "Created: PENDING",
		Detail: fmt.Sprintf("%s for order %s", money(p.Amount, p.CurrencyCode), p.OrderID)})
	if tds := p.PaymentMethod.ThreeDSecure; tds != nil {
		tl.add(timelineItem{At: p.Date, Kind: "3ds", Title: "3DS: " + tds.ResponseCode, Detail: nonEmpty(tds.ReasonText, tds.ReasonCode)})
	}
	if p.Required != nil && p.Status == simulator.StatusPending {
		tl.add(timelineItem{At: p.DateUpdated, Kind: "3ds", Title: "Waiting: " + p.Required.Name, Detail: p.Required.Description})
	}
	lastSale := -1
	for i, t := range p.Transactions {
		if t.Type == simulator.TxnSale {
			lastSale = i
		}
	}
	for i, t := range p.Transactions {
		switch t.Type {
		case simulator.TxnSale:
			tl.addSale(p, t, i == lastSale)
		case simulator.TxnRefund:
			tl.add(timelineItem{At: t.Date, Kind: "refund", Title: "Refund " + money(t.Amount, p.CurrencyCode) + ": " + string(t.ProcessorStatus), Detail: t.Reason})
		}
	}
	if p.Status != tl.last {
		tl.status(p.DateUpdated, p.Status, reasonText(p.StatusReason))
	}
}

// addSale adds sale t's events (authorization, captures, cancellation) and,
// when it was declined or failed, the outcome: the payment's status for the
// last sale (isLast), else a soft decline after which the next processor was
// tried.
func (tl *timeline) addSale(p *simulator.Payment, t simulator.Transaction, isLast bool) {
	sawAuth := false
	for _, e := range t.Events {
		switch e.Type {
		case simulator.EventAuthorizationSucceeded:
			sawAuth = true
			tl.status(e.Date, simulator.StatusAuthorized, "by "+t.ProcessorName+" ("+t.ProcessorTransactionID+")")
		case simulator.EventCaptureSucceeded:
			amt := p.Amount
			if e.Amount != nil {
				amt = *e.Amount
			}
			final := ""
			if e.Final != nil && !*e.Final {
				final = ", not final"
			}
			tl.add(timelineItem{At: e.Date, Kind: "capture", Title: "Capture " + money(amt, p.CurrencyCode), Detail: "event " + e.ID + final})
		case simulator.EventCancellationSucceeded:
			tl.status(e.Date, simulator.StatusCancelled, "")
		}
	}
	if !sawAuth && (t.ProcessorStatus == simulator.StatusDeclined || t.ProcessorStatus == simulator.StatusFailed) {
		if isLast {
			tl.status(t.Date, t.ProcessorStatus, reasonText(t.ProcessorStatusReason)+" at "+t.ProcessorName)
		} else { // a soft decline: the next processor was tried
			tl.add(timelineItem{At: t.Date, Kind: "processor", Title: t.ProcessorName + ": " + string(t.ProcessorStatus) + ", next processor tried",
				Detail: reasonText(t.ProcessorStatusReason)})
		}
	}
}

func reasonText(r *simulator.StatusReason) string {
	if r == nil {
		return ""
	}
	return nonEmpty(r.Message, r.Code, r.DeclineType, r.Type)
}

func nonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
