package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

type paymentData struct {
	P           *simulator.Payment
	Diagram     []diagramNode
	Timeline    []timelineItem
	Explain     *Explanation
	ExplainErr  string
	Sources     sourceState
	Error       string
	Forbidden   bool
	Can         simulator.Actions // what the kernel says the payment allows now
	NotFoundID  string
	WebhooksErr string
	JournalErr  string
}

// sourceState says which optional sources are wired.
type sourceState struct{ Webhooks, Scenarios, Journal bool }

func (s *Server) sources() sourceState {
	return sourceState{Webhooks: s.opt.Webhooks != nil, Scenarios: s.opt.Scenarios != nil, Journal: s.opt.Journal != nil}
}

// diagramNode is one state of the payment state machine, as drawn.
type diagramNode struct {
	Status  simulator.PaymentStatus
	Current bool
	Visited bool
}

// diagramOrder is the happy path then the terminal refusals.
var diagramOrder = []simulator.PaymentStatus{
	simulator.StatusPending, simulator.StatusAuthorized, simulator.StatusSettling, simulator.StatusPartiallySettled,
	simulator.StatusSettled, simulator.StatusDeclined, simulator.StatusFailed, simulator.StatusCancelled,
}

func (s *Server) paymentPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	id := r.PathValue("id")
	d := paymentData{Sources: s.sources()}
	v := &view{Title: "Payment " + id, Nav: "payments", Live: "payment:" + id, Data: &d}
	if !a.Key.Has(simulator.OperationOf(simulator.OpGetPayment).Scope) {
		d.Forbidden = true
		s.render(w, r, http.StatusForbidden, "payment", v)
		return
	}
	p, err := s.svc.Payment(a.Tenant, id)
	if err != nil {
		d.NotFoundID, d.Error = id, plain(err)
		s.render(w, r, http.StatusNotFound, "payment", v)
		return
	}
	d.P = p
	d.Can = p.Actions()
	var hooks []WebhookEvent
	if s.opt.Webhooks != nil {
		if hooks, err = s.opt.Webhooks.Events(a.Tenant, p.ID, 200); err != nil {
			d.WebhooksErr = plain(err)
		}
	}
	var reqs []JournalEntry
	if s.opt.Journal != nil {
		if reqs, err = s.opt.Journal.Requests(a.Tenant, p.ID, 200); err != nil {
			d.JournalErr = plain(err)
		}
	}
	d.Timeline = buildTimeline(p, hooks, reqs)
	d.Diagram = diagram(p, d.Timeline)
	if s.opt.Scenarios != nil {
		if ex, err := s.opt.Scenarios.ExplainPayment(a.Tenant, p.ID); err != nil {
			d.ExplainErr = plain(err)
		} else {
			d.Explain = &ex
		}
	}
	s.render(w, r, http.StatusOK, "payment", v)
}

func diagram(p *simulator.Payment, tl []timelineItem) []diagramNode {
	seen := map[simulator.PaymentStatus]bool{simulator.StatusPending: true, p.Status: true}
	for _, it := range tl {
		if it.Status != "" {
			seen[it.Status] = true
		}
	}
	out := make([]diagramNode, 0, len(diagramOrder))
	for _, st := range diagramOrder {
		out = append(out, diagramNode{Status: st, Current: st == p.Status, Visited: seen[st]})
	}
	return out
}

// paymentAction runs one button of the payment page through the service,
// with the scope the matching API operation needs.
func (s *Server) paymentAction(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	id := r.PathValue("id")
	back := Prefix + "/payments/" + id
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	action := r.PathValue("action")
	op, known := actionOps[action]
	if !known {
		done(w, r, back, simulator.Errorf(simulator.CodeBadRequest, "The dashboard has no action %q", action), "")
		return
	}
	if scope := simulator.OperationOf(op).Scope; scope != "" && !a.Key.Has(scope) {
		done(w, r, back, simulator.Errorf(simulator.CodeForbidden, "The API key lacks the scope %s", scope), "")
		return
	}
	amount, err := formAmount(r, "amount")
	if err != nil {
		done(w, r, back, err, "")
		return
	}
	msg, err := s.runPaymentAction(ctx, r, a, id, action, amount)
	done(w, r, back, err, msg)
}

// actionOps are the operations the payment page's buttons are: a merchant
// operation's scope is the key's to hold; the control plane's need none.
var actionOps = map[string]simulator.OperationID{
	"capture": simulator.OpCapturePayment, "refund": simulator.OpRefundPayment, "cancel": simulator.OpCancelPayment,
	"settle": simulator.OpSettle, "dispute": simulator.OpDispute, "3ds": simulator.OpComplete3DS,
}

// runPaymentAction runs action (a known one) on payment id through the
// service, with the form's other fields, and says what happened (msg) or
// why not (err).
func (s *Server) runPaymentAction(ctx context.Context, r *http.Request, a *auth, id, action string, amount *int64) (msg string, err error) {
	switch action {
	case "capture":
		var p *simulator.Payment
		p, err = s.svc.CapturePayment(ctx, a.Tenant, id, service.CaptureRequest{Amount: amount, Final: r.PostFormValue("final") != "no"})
		if err == nil {
			msg = "Captured. The payment is " + string(p.Status) + "."
		}
	case "refund":
		var p *simulator.Payment
		p, err = s.svc.RefundPayment(ctx, a.Tenant, id, service.RefundRequest{Amount: amount, Reason: strings.TrimSpace(r.PostFormValue("reason"))})
		if err == nil {
			msg = "Refund requested. Refunded so far: " + money(p.Refunded(), p.CurrencyCode) + "."
		}
	case "cancel":
		var p *simulator.Payment
		p, err = s.svc.CancelPayment(ctx, a.Tenant, id, strings.TrimSpace(r.PostFormValue("reason")), "")
		if err == nil {
			msg = "Cancelled. The payment is " + string(p.Status) + "."
		}
	case "settle":
		var p *simulator.Payment
		p, err = s.svc.SettleNow(ctx, a.Tenant, id)
		if err == nil {
			msg = "Settled now. The payment is " + string(p.Status) + "."
		}
	case "dispute":
		var dsp *simulator.Dispute
		dsp, err = s.svc.OpenDispute(ctx, a.Tenant, id, strings.TrimSpace(r.PostFormValue("reason")), amount)
		if err == nil {
			msg = fmt.Sprintf("Dispute %s opened for %d (reason %s); DISPUTE.OPENED is on its way to the webhook endpoint.", dsp.ID, dsp.Amount, dsp.Reason)
		}
	case "3ds":
		var p *simulator.Payment
		p, err = s.svc.CompleteChallenge(ctx, a.Tenant, id, r.PostFormValue("result"))
		if err == nil {
			msg = "3DS challenge answered. The payment is " + string(p.Status) + "."
		}
	}
	return msg, err
}

// formAmount reads an optional minor-units amount; empty means "all".
func formAmount(r *http.Request, name string) (*int64, error) {
	v := strings.TrimSpace(r.PostFormValue(name))
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return nil, simulator.ValidationError("DashboardForm", simulator.FieldError{Path: "amount", Description: "the amount must be a whole number of minor units (cents) above 0, or empty for all"})
	}
	return &n, nil
}
