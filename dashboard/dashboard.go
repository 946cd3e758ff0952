package dashboard

import (
	"crypto/rand"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Prefix is where the dashboard is mounted.
const Prefix = "/_sandbox/ui"

// ChallengePagePath is the sandbox's 3DS challenge page (a payment's
// requiredAction.challengeUrl).
const ChallengePagePath = Prefix + "/checkout/challenge"

// ChallengePageURL is the path and query of the challenge page of
// challengeToken; the API's challengeUrl is it on the request's host.
func ChallengePageURL(challengeToken string) string {
	return ChallengePagePath + "?token=" + url.QueryEscape(challengeToken)
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the dashboard. Every field is optional.
type Options struct {
	// Secret signs session cookies, CSRF tokens and checkout links; random
	// when empty (sessions and links then end with the process). Signed-out
	// sessions are remembered in memory only (revocations): with a Secret
	// that outlives the process, a cookie signed out before a restart would
	// work again after it, until it expires.
	Secret []byte
	// PrefillKey is shown in the sign-in form (the default tenant's key on a
	// local serve); it is shown only while it signs in.
	PrefillKey string
	// SessionTTL is how long a sign-in lasts (default 8h, wall clock).
	SessionTTL time.Duration
	// CheckoutTTL is how long a demo checkout link works (default 24h).
	CheckoutTTL time.Duration
	// PollInterval is the least time between two looks of a live view's
	// stream at its data (default 1s). A stream looks only after the
	// tenant's data changed (service.Service.Changed).
	PollInterval time.Duration
	// Sources owned by other packages; nil shows "not configured". Live
	// views refresh on the tenant's change notification
	// (service.Service.Changed): what a source lists must change only by
	// store writes of the tenant or with a Service.NoteChange call.
	Webhooks  Webhooks
	Scenarios Scenarios
	Journal   Journal
	Logger    *slog.Logger
	// Now is the wall clock of cookies and links (default time.Now); tenant
	// clocks never expire a sign-in.
	Now func() time.Time
	// Trust decides whose X-Forwarded-* headers count for the client's
	// scheme, host and address (the session cookie's Secure, checkout links,
	// the same-origin check, the log); nil: loopback and private ranges.
	Trust *forwarded.Trust
	// Instance names this instance among several behind one proxy (serve's
	// --instance): session cookies and checkout links carry it as a prefix
	// (simulator.WithInstance) so the proxy can route them, and a sign-in
	// with another instance's key is redirected to it. Empty: no prefix.
	Instance string
}

// Server serves the dashboard and the demo checkout.
type Server struct {
	svc   *service.Service
	opt   Options
	mux   *http.ServeMux
	pages map[string]*template.Template
	log   *slog.Logger
	done  closer
	// keepAlive is the interval of an idle stream's comments (keepAlive;
	// tests shorten it to run idle cycles).
	keepAlive time.Duration
	// looks counts the looks of event streams at their views' data.
	looks atomic.Int64
	// ended are the sessions signed out before their expiry.
	ended *revocations
}

// New builds the dashboard on the service.
func New(svc *service.Service, opt Options) (*Server, error) {
	if len(opt.Secret) == 0 {
		opt.Secret = make([]byte, 32)
		if _, err := rand.Read(opt.Secret); err != nil {
			return nil, err
		}
	}
	if opt.SessionTTL <= 0 {
		opt.SessionTTL = 8 * time.Hour
	}
	if opt.CheckoutTTL <= 0 {
		opt.CheckoutTTL = 24 * time.Hour
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	s := &Server{svc: svc, opt: opt, mux: http.NewServeMux(), log: opt.Logger, done: closer{ch: make(chan struct{})}, keepAlive: keepAlive,
		ended: newRevocations(maxEndedSessions, opt.SessionTTL)}
	if err := s.parseTemplates(); err != nil {
		return nil, err
	}
	s.routes()
	return s, nil
}

// Wrap returns the handler of the whole server: the dashboard under Prefix,
// "/" redirected to it for browsers (requests accepting HTML), api otherwise.
func (s *Server) Wrap(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == Prefix || strings.HasPrefix(p, Prefix+"/"):
			s.ServeHTTP(w, r)
		case p == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.Contains(r.Header.Get("Accept"), "text/html"):
			w.Header().Set("X-Request-Id", uuid.NewString())
			http.Redirect(w, r, Prefix+"/", http.StatusFound)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// ServeHTTP serves the dashboard's own paths (under Prefix). Every answer
// (pages, redirects, static assets, event streams, errors) carries
// X-Request-Id, as the API's do; the log line names it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	h := sw.Header()
	rid := uuid.NewString()
	h.Set("X-Request-Id", rid)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'")
	defer func() {
		if rec := recover(); rec != nil {
			s.log.Error("dashboard panic", "path", r.URL.Path, "panic", rec)
			if !sw.wrote {
				http.Error(sw, "Internal error", http.StatusInternalServerError)
			}
		}
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"latency", time.Since(start).Round(time.Microsecond).String(), "requestId", rid,
			"client", s.opt.Trust.ClientIP(r))
	}()
	s.mux.ServeHTTP(sw, r)
}

// statusWriter remembers the status for the log and passes Flush through (SSE).
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	w.status, w.wrote = code, true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// routes is the dashboard's one route table.
func (s *Server) routes() {
	m := s.mux
	static, _ := fs.Sub(staticFS, "static")
	m.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", cacheStatic(http.FileServerFS(static))))

	m.HandleFunc("GET "+Prefix, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, Prefix+"/", http.StatusFound) })
	m.HandleFunc("GET "+Prefix+"/{$}", s.home)
	m.HandleFunc("GET "+Prefix+"/login", s.loginPage)
	m.HandleFunc("POST "+Prefix+"/login", s.login)
	m.HandleFunc("POST "+Prefix+"/logout", s.signed(s.logout))

	m.HandleFunc("GET "+Prefix+"/payments", s.signed(s.live(fixedTopic("payments"), s.paymentsPage)))
	m.HandleFunc("GET "+Prefix+"/payments/{id}", s.signed(s.live(func(r *http.Request) string { return "payment:" + r.PathValue("id") }, s.paymentPage)))
	m.HandleFunc("POST "+Prefix+"/payments/{id}/{action}", s.signed(s.paymentAction))
	m.HandleFunc("GET "+Prefix+"/attempts", s.signed(s.live(fixedTopic("attempts"), s.attemptsPage)))
	m.HandleFunc("POST "+Prefix+"/attempts/{id}/{action}", s.signed(s.attemptAction))
	m.HandleFunc("GET "+Prefix+"/clock", s.signed(s.live(fixedTopic("clock"), s.clockPage)))
	m.HandleFunc("POST "+Prefix+"/clock", s.signed(s.advanceClock))
	m.HandleFunc("GET "+Prefix+"/webhooks", s.signed(s.live(fixedTopic("webhooks"), s.webhooksPage)))
	m.HandleFunc("POST "+Prefix+"/webhooks/{action}", s.signed(s.webhooksAction))
	m.HandleFunc("GET "+Prefix+"/scenarios", s.signed(s.scenariosPage))
	m.HandleFunc("POST "+Prefix+"/scenarios", s.signed(s.scenariosAction))
	m.HandleFunc("GET "+Prefix+"/events", s.signed(s.events))
	m.HandleFunc("POST "+Prefix+"/checkout-link", s.signed(s.checkoutLink))

	m.HandleFunc("GET "+Prefix+"/checkout", s.checkoutPage)
	m.HandleFunc("POST "+Prefix+"/checkout/session", s.checkoutSession)
	m.HandleFunc("GET "+Prefix+"/checkout/done", s.checkoutDone)
	m.HandleFunc("GET "+ChallengePagePath, s.challengePage)
	m.HandleFunc("POST "+ChallengePagePath, s.challengeAnswer)

	m.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, http.StatusNotFound, "message", &view{Title: "Not found", Bare: true,
			Data: message{Heading: "Not found", Text: "There is no dashboard page at " + r.URL.Path + "."}})
	})
}

func cacheStatic(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		h.ServeHTTP(w, r)
	})
}

// home sends a signed-in user to the payments, others to sign-in.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	if _, err := s.sessionOf(r); err != nil {
		http.Redirect(w, r, Prefix+"/login", http.StatusFound)
		return
	}
	http.Redirect(w, r, Prefix+"/payments", http.StatusFound)
}

// plain turns an error into words for a person: the catalogue's message and
// recovery, never internals.
func plain(err error) string {
	var e *simulator.Error
	if errors.As(err, &e) {
		msg := e.Message
		for _, f := range e.Fields {
			msg += " (" + f.Path + ": " + f.Description + ")"
		}
		if e.Recovery != "" {
			msg += " " + e.Recovery
		}
		return string(e.Code) + ": " + msg
	}
	return "Something went wrong inside the sandbox; the server log has the details."
}
