package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

type webhooksData struct {
	Configured bool
	Endpoint   WebhookEndpoint
	// Versions are the webhook versions the endpoint form offers.
	Versions []string
	Events   []WebhookEvent
	Error    string
	// CanRotate: the signed-in key may rotate the signing secret (it holds
	// every scope, rotateAllowed).
	CanRotate bool
}

func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	d := webhooksData{Configured: s.opt.Webhooks != nil, Versions: simulator.APIVersionNames(), CanRotate: rotateAllowed(a.Key) == nil}
	if d.Configured {
		var err error
		if d.Endpoint, err = s.opt.Webhooks.Endpoint(a.Tenant); err != nil {
			d.Error = plain(err)
		} else if d.Events, err = s.opt.Webhooks.Events(a.Tenant, strings.TrimSpace(r.URL.Query().Get("paymentId")), 100); err != nil {
			d.Error = plain(err)
		}
	}
	s.render(w, r, http.StatusOK, "webhooks", &view{Title: "Webhooks", Nav: "webhooks", Live: "webhooks", Data: d})
}

func (s *Server) webhooksAction(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	back := Prefix + "/webhooks"
	wh := s.opt.Webhooks
	if wh == nil {
		done(w, r, back, simulator.Errorf(simulator.CodeBadRequest, "Webhooks are not configured in this build"), "")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 60*time.Second)
	defer cancel()
	switch r.PathValue("action") {
	case "endpoint":
		url, version := strings.TrimSpace(r.PostFormValue("url")), r.PostFormValue("version")
		err := wh.SetEndpoint(a.Tenant, url, version)
		msg := "Webhook endpoint set to " + nonEmpty(url, "(none)") + "."
		if version != "" {
			msg = "Webhook endpoint set to " + nonEmpty(url, "(none)") + ", webhook version " + version + "."
		}
		done(w, r, back, err, msg)
	case "deliver":
		ok, failed, err := wh.DeliverNow(ctx, a.Tenant)
		done(w, r, back, err, fmt.Sprintf("Delivered %d, failed %d.", ok, failed))
	case "rotate":
		s.rotateSecret(w, r, a, wh)
	case "replay":
		id := r.PostFormValue("eventId")
		at, err := wh.Replay(ctx, a.Tenant, id)
		msg := fmt.Sprintf("Replayed %s: answered %d in %s.", id, at.StatusCode, at.Latency.Round(time.Millisecond))
		if at.Error != "" {
			msg = fmt.Sprintf("Replayed %s: %s.", id, at.Error)
		}
		to := back
		if p := safeNext(r.PostFormValue("back")); p != "" {
			to = p
		}
		done(w, r, to, err, msg)
	default:
		done(w, r, back, simulator.Errorf(simulator.CodeBadRequest, "The dashboard has no webhook action %q", r.PathValue("action")), "")
	}
}

// rotateAllowed is nil when key may rotate the tenant's signing secret, which
// reveals it and ends every session: a key holding every scope (the API
// takes the admin key instead, which the dashboard never sees).
func rotateAllowed(key simulator.APIKey) *simulator.Error {
	if missing := key.MissingScopes(); len(missing) > 0 {
		return simulator.ErrLacksScopes(missing, "Rotating the signing secret").
			WithRecovery("Sign in with a key of this tenant that holds every scope.")
	}
	return nil
}

// rotateSecret rotates the tenant's signing secret and shows the new one on
// the answer itself, never in a cookie or a later page. The rotation ends
// every session of the tenant (generation), this one included, so the
// answer also signs this browser out.
func (s *Server) rotateSecret(w http.ResponseWriter, r *http.Request, a *auth, wh Webhooks) {
	if e := rotateAllowed(a.Key); e != nil {
		s.render(w, r, http.StatusForbidden, "message", &view{Title: "Refused", Nav: "webhooks", Data: message{
			Heading: "The signing secret was not rotated", Text: "Refused. " + string(e.Code) + ": " + e.Message + ". " + e.Recovery, Link: Prefix + "/webhooks", LinkText: "Back to the webhooks"}})
		return
	}
	secret, err := wh.RotateSecret(a.Tenant)
	if err != nil {
		done(w, r, Prefix+"/webhooks", err, "")
		return
	}
	s.clearSession(w, r)
	s.render(w, r, http.StatusOK, "message", &view{Title: "Signing secret rotated", Bare: true, Data: message{
		Heading: "New signing secret: " + secret,
		Text: "The previous secret still signs X-Signature-Secondary for 24 hours (tenant clock). Every dashboard session of tenant " +
			a.Tenant.ID + " has ended, this one included: sign in again.",
		Link: Prefix + "/login?next=" + url.QueryEscape(Prefix+"/webhooks"), LinkText: "Sign in"}})
}

type scenariosData struct {
	Configured bool
	YAML       string
	Source     string
	Problems   []ScenarioProblem
	Lines      []scenarioLine // the submitted text with problems beside their lines
	Explain    *Explanation
	Sample     string
	Error      string
	Applied    bool
	// Next is the tenant's pending one-shot (nil: none).
	Next *simulator.OneShot
}

type scenarioLine struct {
	N        int
	Text     string
	Problems []string
}

const sampleRequest = `{"amount": 1000, "currencyCode": "EUR", "card": "4000000000000002"}`

func (s *Server) scenariosPage(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	d := &scenariosData{Configured: s.opt.Scenarios != nil, Sample: sampleRequest}
	if d.Configured {
		var err error
		if d.YAML, d.Source, err = s.opt.Scenarios.Rules(a.Tenant); err != nil {
			d.Error = plain(err)
		}
		d.Next, _ = s.svc.NextScenario(a.Tenant)
	}
	s.render(w, r, http.StatusOK, "scenarios", &view{Title: "Scenarios", Nav: "scenarios", Data: d})
}

// scenariosAction applies, resets or explains; a rejected document stays in
// the editor with the validator's problems shown beside their lines.
func (s *Server) scenariosAction(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	sc := s.opt.Scenarios
	d := &scenariosData{Configured: sc != nil, Sample: sampleRequest}
	v := &view{Title: "Scenarios", Nav: "scenarios", Data: d}
	if sc == nil {
		s.render(w, r, http.StatusNotFound, "scenarios", v)
		return
	}
	status := http.StatusOK
	var err error
	switch r.PostFormValue("action") {
	case "apply":
		d.YAML = strings.ReplaceAll(r.PostFormValue("yaml"), "\r\n", "\n")
		d.Problems, err = sc.Apply(a.Tenant, d.YAML)
		if err == nil && len(d.Problems) > 0 {
			status = http.StatusUnprocessableEntity
			d.Lines = annotate(d.YAML, d.Problems)
		}
		d.Applied = err == nil && len(d.Problems) == 0
	case "reset":
		if err = sc.Reset(a.Tenant); err == nil {
			setFlash(w, "ok", "Back to the rules of the scenarios file.")
			http.Redirect(w, r, Prefix+"/scenarios", http.StatusSeeOther)
			return
		}
	case "clear-next":
		if err = s.svc.ClearNextScenario(a.Tenant); err == nil {
			setFlash(w, "ok", "The pending one-shot is cleared: new payments follow the rules.")
			http.Redirect(w, r, Prefix+"/scenarios", http.StatusSeeOther)
			return
		}
	case "explain":
		d.Sample = r.PostFormValue("sample")
		var ex Explanation
		if id := strings.TrimSpace(r.PostFormValue("paymentId")); id != "" {
			ex, err = sc.ExplainPayment(a.Tenant, id)
		} else {
			ex, err = sc.ExplainRequest(a.Tenant, d.Sample)
		}
		if err == nil {
			d.Explain = &ex
		}
	default:
		err = simulator.Errorf(simulator.CodeBadRequest, "Unknown scenarios action")
	}
	if err != nil {
		d.Error, status = "Refused. "+plain(err), http.StatusUnprocessableEntity
	}
	if d.YAML == "" || d.Applied {
		d.YAML, d.Source, _ = sc.Rules(a.Tenant)
	}
	if d.Applied {
		v.Flash = &flash{Kind: "ok", Text: "Scenarios applied: new payments of this tenant follow them."}
	}
	d.Next, _ = s.svc.NextScenario(a.Tenant)
	s.render(w, r, status, "scenarios", v)
}

func annotate(doc string, problems []ScenarioProblem) []scenarioLine {
	lines := strings.Split(doc, "\n")
	out := make([]scenarioLine, len(lines))
	for i, l := range lines {
		out[i] = scenarioLine{N: i + 1, Text: l}
	}
	for _, p := range problems {
		if p.Line >= 1 && p.Line <= len(out) {
			out[p.Line-1].Problems = append(out[p.Line-1].Problems, p.Message)
		}
	}
	return out
}
