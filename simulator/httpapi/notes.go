package httpapi

import (
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// notes is what the middleware and the handlers note about one request on
// every route: its id, the server, the tenant, the API version, the body and
// the payment its answer names. They are fields of the request's context
// (noted), not entries of echo's per-request map, which costs a map and a
// boxed value per entry on every request; the rarer notes (hints, migration
// differences, an error's code and payment) stay in that map.
type notes struct {
	requestID string
	server    *Server
	tenant    *simulator.Tenant
	version   simulator.APIVersion // "" on routes without a version header
	body      []byte               // set by readBody
	// answerPayment is the id of the payment a payment, approve or attempt
	// answer names ("" when none), set by writeJSON when answered is.
	answerPayment string
	answered      bool
	// capture is the journal's capture of the answer (journalStart).
	capture captureWriter
}

// noted is echo's context of one request carrying its notes. Server.note
// wraps the context echo routes in one from a pool, outermost, so that every
// middleware and handler gets it; it goes back to the pool when the request
// is answered, as echo's own context does.
type noted struct {
	echo.Context
	notes notes
}

var notedPool = sync.Pool{New: func() any { return new(noted) }}

// note is the outermost middleware: it hands the rest of the chain the
// request's context with room for its notes.
func (s *Server) note(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		n := notedPool.Get().(*noted)
		n.Context, n.notes.server = c, s
		err := next(n)
		*n = noted{}
		notedPool.Put(n)
		return err
	}
}

// ctxNotes holds the notes of a context that Server.note did not wrap (a
// handler driven by a test).
const ctxNotes = "paysandbox.notes"

// notesOf is c's notes.
func notesOf(c echo.Context) *notes {
	if n, ok := c.(*noted); ok {
		return &n.notes
	}
	n, _ := c.Get(ctxNotes).(*notes)
	if n == nil {
		n = &notes{}
		c.Set(ctxNotes, n)
	}
	return n
}

func requestID(c echo.Context) string { return notesOf(c).requestID }

func tenantOf(c echo.Context) *simulator.Tenant { return notesOf(c).tenant }

// setTenant notes the tenant the request acts for (the journal records it
// under that tenant).
func setTenant(c echo.Context, t *simulator.Tenant) { notesOf(c).tenant = t }

// body returns the request body read by readBody.
func body(c echo.Context) []byte { return notesOf(c).body }

func setBody(c echo.Context, b []byte) { notesOf(c).body = b }

// setAnswerPayment notes the payment id an answer names, for the journal
// (journalPaymentIDs).
func setAnswerPayment(c echo.Context, id string) {
	n := notesOf(c)
	n.answerPayment, n.answered = id, true
}
