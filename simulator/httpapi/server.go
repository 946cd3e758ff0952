package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/internal/forwarded"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// Options configure the server.
type Options struct {
	// RequestTimeout cuts merchant and client requests with 504 RequestTimeout
	// (the work they started goes on). 0 disables it.
	RequestTimeout time.Duration
	// AdminKey, when set, is required in X-Admin-Key by POST /_sandbox/tenants.
	AdminKey string
	// Ready reports whether the store is open (GET /readyz).
	Ready  func() error
	Logger *slog.Logger
	// Version is reported by /healthz.
	Version string
	// ReadTimeout bounds how long a request's headers and body may take to
	// arrive (0 disables it); IdleTimeout closes idle keep-alive connections.
	// See HTTPServer.
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	// OnChaos, when set, is told that a tenant's webhook chaos changed.
	OnChaos func(tenantID string)
	// JournalSize is how many requests the journal keeps per tenant
	// (0: DefaultJournalSize).
	JournalSize int
	// Trust decides whose X-Forwarded-* headers count for the client's
	// scheme, host and address (challengeUrl, the log); nil: loopback and
	// private ranges.
	Trust *forwarded.Trust
	// SnapshotMaxBytes is the largest snapshot POST /_sandbox/tenants
	// imports (0: DefaultSnapshotMaxBytes); its other bodies keep MaxBody.
	SnapshotMaxBytes int64
	// Hosts, when set, are the only Host names answered (Guard); nil: any.
	// A loopback-bound server sets it (LoopbackHosts) against DNS rebinding.
	Hosts *Hosts
	// ChallengePage is the path and query of the 3DS challenge page of a
	// challenge token (the dashboard's), which a 3DS requiredAction names as
	// challengeUrl on the request's host; nil: no challengeUrl.
	ChallengePage func(challengeToken string) string
	// Tracer, when set, makes a span of every request (a traceparent it
	// carries is continued); nil: no tracing and no middleware for it.
	Tracer Tracer
}

// Server is the HTTP face of the service.
type Server struct {
	e   *echo.Echo
	svc *service.Service
	opt Options
	log *slog.Logger
	// bodies are the requests whose body is still arriving (see receive);
	// guarded those under the request timeout (see Cut).
	bodies  receiving
	guarded guardedSet

	journal *Journal
	jroutes map[routeKey]journalRoute // journalRouteOf
	api     apiHandler                // Routes
}

// MaxBody is the largest request body accepted (413 above).
const MaxBody = 1 << 20

// New builds the server and its routes.
func New(svc *service.Service, opt Options) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	s := &Server{e: e, svc: svc, opt: opt, log: opt.Logger, journal: NewJournal(opt.JournalSize), api: apiHandler{e}}
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = opt.Trust.ClientIP // c.RealIP()
	// Every request's middleware, composed once: echo composes what e.Use
	// registers anew on every request (a closure per middleware), so only
	// one middleware is registered, which hands back this chain as it is.
	// It ends in the handler echo routed the request to (c.Handler(): echo
	// passes it as next, there being no pre-middleware).
	mws := []echo.MiddlewareFunc{s.note}
	if opt.Tracer != nil {
		mws = append(mws, s.trace)
	}
	mws = append(mws, s.requestLog, s.browserWrites)
	every := chain(func(c echo.Context) error { return c.Handler()(c) }, mws...)
	e.Use(func(echo.HandlerFunc) echo.HandlerFunc { return every })
	s.routes()
	s.indexJournalRoutes()
	return s
}

// ServeHTTP makes the server an http.Handler.
// Every body is read under the read deadline first (see receive).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.receive(w, r) {
		s.api.ServeHTTP(w, r)
	}
}

// apiHandler is the routes as an http.Handler: the path's trailing slash
// trimmed, then echo. (The trim is not an echo pre-middleware: echo composes
// those, and the handler that routes after them, anew for every request.)
type apiHandler struct{ e *echo.Echo }

func (h apiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	trimTrailingSlash(r)
	h.e.ServeHTTP(w, r)
}

// ctxErrorCode is the errorId of a request's error answer (the log line's).
const ctxErrorCode = "paysandbox.errorCode"

// writeJSON renders v without HTML escaping (the bytes a client sees are the
// bytes the vendor would send).
func writeJSON(c echo.Context, status int, v any) error {
	if d, ok := v.(paymentDTO); ok {
		e := getAnswerEncoder()
		defer putAnswerEncoder(e)
		e.payment = d
		return e.writePayment(c, status)
	}
	switch d := v.(type) { // the payment an answer is about, for the journal (journalPaymentIDs)
	case approveDTO:
		setAnswerPayment(c, d.MerchantPaymentID)
	case attemptDTO:
		setAnswerPayment(c, d.PaymentID)
	case errorBody:
		c.Set(ctxErrorPayment, d.Error.PaymentID)
	}
	e := getAnswerEncoder()
	defer putAnswerEncoder(e)
	return e.write(c, status, v)
}

// writePayment answers p as version v shows it (toPaymentDTO): the DTO and
// what it points to are built in the pooled encoder's own room
// (answerEncoder.payment, .parts), so that none of it is made on the heap
// for one answer.
func writePayment(c echo.Context, status int, p *simulator.Payment, v simulator.APIVersion, withEvents bool) error {
	e := getAnswerEncoder()
	defer putAnswerEncoder(e)
	fillPaymentDTO(&e.payment, &e.parts, p, v, withEvents)
	return e.writePayment(c, status)
}

// writePayment is writeJSON of the payment answer in e.payment: a 3DS
// challenge's requiredAction gets its challengeUrl on the request's host,
// and the journal notes the payment.
func (e *answerEncoder) writePayment(c echo.Context, status int) error {
	d := &e.payment
	if ra := d.RequiredAction; ra != nil && ra.Name == simulator.ActionThreeDS && ra.ClientToken != "" {
		if s := notesOf(c).server; s != nil && s.opt.ChallengePage != nil {
			with := *ra
			with.ChallengeURL = s.opt.Trust.BaseURL(c.Request()) + s.opt.ChallengePage(ra.ClientToken)
			e.parts.required = with
			d.RequiredAction = &e.parts.required
		}
	}
	setAnswerPayment(c, d.ID)
	return e.write(c, status, d)
}

// jsonContentType is the Content-Type value of every JSON answer, shared
// (header values are never written in place).
var jsonContentType = []string{echo.MIMEApplicationJSON}

func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// trimTrailingSlash routes "/payments/" as "/payments".
func trimTrailingSlash(r *http.Request) {
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		if r.URL.Path == "" {
			r.URL.Path = "/"
		}
		r.URL.RawPath = ""
	}
}
