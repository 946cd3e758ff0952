package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// view is what every page template gets.
type view struct {
	Title  string
	Nav    string // the active navigation entry
	Bare   bool   // no navigation (sign-in, checkout)
	Live   string // the SSE topic that refreshes #live ("" none)
	LiveFP string // the topic's fingerprint when the page was rendered (see events)
	Auth   *auth
	Flash  *flash
	Now    time.Time // the tenant's clock
	Prefix string
	Data   any
}

// message is the data of the generic message page.
type message struct {
	Heading, Text, Link, LinkText string
}

var pageNames = []string{"login", "message", "payments", "payment", "attempts", "clock", "webhooks", "scenarios", "checkout", "challenge", "checkout_done"}

func (s *Server) parseTemplates() error {
	s.pages = map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return nil
}

// render writes page name. A request with X-Fragment: live gets only the
// page's live region (what the SSE refresh swaps in).
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	v.Prefix = Prefix
	if v.Auth == nil {
		v.Auth = authOf(r)
	}
	if v.Auth != nil {
		v.Now = s.svc.Now(v.Auth.Tenant)
		if v.Flash == nil && r.Method == http.MethodGet {
			v.Flash = takeFlash(w, r)
		}
	}
	tpl := "layout.html"
	if r.Header.Get("X-Fragment") == "live" && v.Live != "" {
		tpl = "live"
	} else if v.Live != "" && v.Auth != nil {
		// The page's event stream compares it when it connects, so that a
		// change made before then is not missed (see live).
		v.LiveFP = s.liveFPOf(r, v.Auth, v.Live)
	}
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, tpl, v); err != nil {
		s.log.Error("dashboard template", "page", name, "err", err)
		http.Error(w, "The page could not be rendered; the server log has the details.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

var funcs = template.FuncMap{
	"money": money,
	"ts": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"lower":    func(s any) string { return strings.ToLower(fmt.Sprint(s)) },
	"ms":       func(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) },
	"statuses": func() []simulator.PaymentStatus { return simulator.PaymentStatuses },
	"has":      func(k simulator.APIKey, scope string) bool { return k.Has(simulator.Scope(scope)) },
	"add":      func(a, b int) int { return a + b },
}

// money renders minor units with the currency (2 decimals; 0 for the few
// zero-decimal currencies).
func money(amount int64, currency string) string {
	switch currency {
	case "JPY", "KRW", "VND", "CLP", "ISK", "UGX", "XAF", "XOF":
		return fmt.Sprintf("%d %s", amount, currency)
	}
	sign := ""
	if amount < 0 {
		sign, amount = "-", -amount
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, amount/100, amount%100, currency)
}
