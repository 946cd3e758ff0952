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

type attemptsData struct {
	Status   string
	Attempts []*simulator.Attempt
	Error    string
}

func (s *Server) attemptsPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	d := attemptsData{Status: r.URL.Query().Get("status")}
	if d.Status == "" {
		d.Status = string(simulator.AttemptAwaiting)
	}
	filter := simulator.AttemptStatus(d.Status)
	if d.Status == "ALL" {
		filter = ""
	}
	list, err := s.svc.Attempts(a.Tenant, filter)
	if err != nil {
		d.Error = plain(err)
	}
	if len(list) > 200 {
		list = list[:200]
	}
	d.Attempts = list
	s.render(w, r, http.StatusOK, "attempts", &view{Title: "Payment attempts", Nav: "attempts", Live: "attempts", Data: d})
}

func (s *Server) attemptAction(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	id := r.PathValue("id")
	back := Prefix + "/attempts"
	if op, ok := attemptOps[r.PathValue("action")]; ok {
		if scope := simulator.OperationOf(op).Scope; !a.Key.Has(scope) {
			done(w, r, back, simulator.Errorf(simulator.CodeForbidden, "The API key lacks the scope %s", scope), "")
			return
		}
	}
	switch r.PathValue("action") {
	case "approve":
		res, err := s.svc.ApproveAttempt(r.Context(), a.Tenant, id)
		msg := ""
		if err == nil {
			msg = fmt.Sprintf("Attempt %s approved: payment %s is being authorized.", id, res.PaymentID)
		}
		done(w, r, back, err, msg)
	case "abort":
		_, err := s.svc.AbortAttempt(a.Tenant, id)
		done(w, r, back, err, "Attempt "+id+" aborted; its token can no longer pay.")
	default:
		done(w, r, back, simulator.Errorf(simulator.CodeBadRequest, "The dashboard has no attempt action %q", r.PathValue("action")), "")
	}
}

// attemptOps are the API operations the attempts page's buttons are: the
// key must hold their scope.
var attemptOps = map[string]simulator.OperationID{"approve": simulator.OpApproveAttempt, "abort": simulator.OpAbortAttempt}

type clockData struct {
	Upcoming []*simulator.Job
	Fired    []service.Fired // what the advance ran, in the order it ran
	Advanced string
	Error    string
}

func (s *Server) clockPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	d := clockData{}
	s.fillUpcoming(a.Tenant, &d)
	s.render(w, r, http.StatusOK, "clock", &view{Title: "Clock", Nav: "clock", Live: "clock", Data: &d})
}

func (s *Server) fillUpcoming(t *simulator.Tenant, d *clockData) {
	var err error
	if d.Upcoming, err = s.svc.UpcomingJobs(t, 20); err != nil {
		d.Error = plain(err)
	}
}

// advanceClock moves the tenant's clock and shows what the advance ran, as
// POST /_sandbox/clock/advance answers it: the scheduled jobs and the webhook
// attempts it made, in time order; an attempt still in flight when the
// advance stopped waiting is marked Pending.
func (s *Server) advanceClock(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	d := clockData{}
	v := &view{Title: "Clock", Nav: "clock", Live: "clock", Data: &d}
	dur, err := parseDuration(r.PostFormValue("duration"))
	if err != nil {
		d.Error = "Refused. " + plain(err)
		s.fillUpcoming(a.Tenant, &d)
		s.render(w, r, http.StatusUnprocessableEntity, "clock", v)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 60*time.Second)
	defer cancel()
	status := http.StatusOK
	if _, d.Fired, err = s.svc.AdvanceClockFired(ctx, a.Tenant, dur); err != nil {
		d.Error, status = "Refused. "+plain(err), http.StatusUnprocessableEntity
	} else {
		d.Advanced = dur.String()
	}
	if cur, err := s.svc.Tenant(a.Tenant.ID); err == nil && cur != nil {
		a.Tenant = cur // the page shows the moved clock
	}
	s.fillUpcoming(a.Tenant, &d)
	s.render(w, r, status, "clock", v)
}

// parseDuration accepts Go durations (90s, 15m, 1h30m) and whole days (2d).
func parseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	bad := simulator.ValidationError("ClockAdvanceRequest", simulator.FieldError{Path: "duration",
		Description: "the duration must be positive, like 90s, 15m, 1h30m or 2d, and at most 3650d"})
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 3650 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > 3650*24*time.Hour {
		return 0, bad
	}
	return d, nil
}
