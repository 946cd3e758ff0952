package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// fuzzRoute is one request decoder the fuzzer reaches: the first byte of the
// input picks it, the rest is the body (or the query, for GETs).
type fuzzRoute struct {
	method, path string
	query        bool // the input is the query string, not the body
	clientToken  bool // send the fixture's X-Client-Token
	patch        bool // PATCH /client-session: the fixture's clientToken goes into the body
	control      bool // /_sandbox: no version header
}

var fuzzRoutes = []fuzzRoute{
	{method: "POST", path: "/client-session"},
	{method: "PATCH", path: "/client-session", patch: true},
	{method: "GET", path: "/client-session", query: true},
	{method: "POST", path: "/payments"},
	{method: "GET", path: "/payments", query: true},
	{method: "GET", path: "/payments/{pay}", query: true},
	{method: "POST", path: "/payments/{pay}/authorize"},
	{method: "POST", path: "/payments/{pay}/capture"},
	{method: "POST", path: "/payments/{pay}/cancel"},
	{method: "POST", path: "/payments/{pay}/refund"},
	{method: "POST", path: "/payments/{pay}/resume"},
	{method: "POST", path: "/payment-attempts/{att}/approve"},
	{method: "POST", path: "/payment-attempts/{att}/abort"},
	{method: "POST", path: "/payment-instruments/{tok}/vault"},
	{method: "GET", path: "/payment-instruments", query: true},
	{method: "POST", path: "/payment-instruments/{tok}/default"},
	{method: "POST", path: "/client/payment-instruments", clientToken: true},
	{method: "POST", path: "/client/payments", clientToken: true},
	{method: "POST", path: "/client/payments/{pay}/resume", clientToken: true},
	{method: "POST", path: "/client/3ds/challenge", clientToken: true},
	{method: "POST", path: "/_sandbox/tenants", control: true},
	{method: "POST", path: "/_sandbox/clock/advance", control: true},
	{method: "GET", path: "/_sandbox/wait", query: true, control: true},
	{method: "GET", path: "/_sandbox/payment-attempts/{att}", control: true},
	{method: "POST", path: "/_sandbox/payment-attempts/{att}/expire", control: true},
	{method: "POST", path: "/_sandbox/payments/{pay}/dispute", control: true},
	{method: "POST", path: "/_sandbox/payments/{pay}/settle", control: true},
	{method: "POST", path: "/_sandbox/payments/{pay}/3ds", control: true},
}

// fuzzFixture is a server on an in-memory store with one session, one
// tokenised card, one payment and one manual attempt to aim at.
type fuzzFixture struct {
	srv                      *Server
	token, pay, att, instrum string
}

var (
	fuzzOnce sync.Once
	fuzzFix  *fuzzFixture
)

func newFuzzFixture(tb testing.TB) *fuzzFixture {
	fuzzOnce.Do(func() {
		db, err := store.Open(":memory:", "never", store.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		catalog, err := cards.Parse(fixtures.Cards)
		if err != nil {
			tb.Fatal(err)
		}
		svc := service.NewService(db, simulatorClock{}, simulator.RandomIDs{}, catalog, processors.NewFake(nil, nil), nil, service.Config{})
		if _, err := svc.EnsureTenant(service.TenantSpec{ID: simulator.DefaultTenantID, SigningSecret: "s",
			APIKeys: []simulator.APIKey{{Key: simulator.DefaultAPIKey, Scopes: simulator.AllScopes}}}); err != nil {
			tb.Fatal(err)
		}
		fx := &fuzzFixture{srv: New(svc, Options{RequestTimeout: 2 * time.Second, ReadTimeout: time.Second})}
		do := func(method, path, body string, hdr ...string) map[string]any {
			w := fx.serve(method, path, body, hdr...)
			var m map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &m)
			return m
		}
		fx.token, _ = do("POST", "/client-session", `{"orderId":"o","currencyCode":"EUR","amount":1000,"customerId":"c"}`)["clientToken"].(string)
		card := `{"paymentInstrument":{"number":"4111111111111111","cvv":"123","expirationMonth":"12","expirationYear":"2030"}}`
		fx.instrum, _ = do("POST", "/client/payment-instruments", card, "X-Client-Token", fx.token)["token"].(string)
		pt, _ := do("POST", "/client/payment-instruments", card, "X-Client-Token", fx.token)["token"].(string)
		fx.pay, _ = do("POST", "/payments", `{"paymentMethodToken":"`+pt+`"}`)["id"].(string)
		manual, _ := do("POST", "/client-session", `{"orderId":"m","currencyCode":"EUR","amount":500,"approvalMode":"MANUAL"}`)["clientToken"].(string)
		fx.att, _ = do("POST", "/client/payment-instruments", card, "X-Client-Token", manual)["paymentAttemptId"].(string)
		if fx.token == "" || fx.pay == "" || fx.instrum == "" {
			tb.Fatalf("fuzz fixture incomplete: %+v", fx)
		}
		if fx.att == "" {
			fx.att = "00000000-0000-4000-8000-000000000000"
		}
		fuzzFix = fx
	})
	if fuzzFix == nil {
		tb.Fatal("fuzz fixture failed")
	}
	return fuzzFix
}

// simulatorClock is the wall clock (httpapi tests do not import clock).
type simulatorClock struct{}

func (simulatorClock) Now() time.Time { return time.Now().UTC() }

func (fx *fuzzFixture) serve(method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	var r *http.Request
	if rd != nil {
		r = httptest.NewRequest(method, path, rd)
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	r.Header.Set("X-API-KEY", simulator.DefaultAPIKey)
	r.Header.Set("X-API-VERSION", "2.4")
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	ctx, cancel := context.WithTimeout(r.Context(), 100*time.Millisecond) // bounds /_sandbox/wait
	defer cancel()
	w := httptest.NewRecorder()
	fx.srv.ServeHTTP(w, r.WithContext(ctx))
	return w
}

// FuzzRequest sends arbitrary bodies (and queries) to every request decoder
// and validator. Whatever the input: no panic, never a 500, every error in
// the envelope (422 with its validationErrors), every answer JSON, and
// whatever a create accepted can be read back.
func FuzzRequest(f *testing.F) {
	fx := newFuzzFixture(f)
	f.Add([]byte("\x00{}"))
	f.Add([]byte("\x01{\"metadata\":{\"a\":{\"b\":[1,2,{\"c\":null}]}}}"))
	f.Add([]byte("\x03{\"paymentMethodToken\":\"x\",\"amount\":-1}"))
	f.Add([]byte("\x10{\"paymentInstrument\":{\"number\":\"4111 1111\",\"expirationMonth\":\"1\",\"expirationYear\":\"20\"}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		rt := fuzzRoutes[int(data[0])%len(fuzzRoutes)]
		input := string(data[1:])
		path := strings.NewReplacer("{pay}", fx.pay, "{att}", fx.att, "{tok}", fx.instrum).Replace(rt.path)
		body := input
		if rt.query {
			body = ""
			q := input
			if _, err := url.ParseRequestURI("/x?" + q); err != nil || strings.ContainsAny(q, " #") {
				q = "q=" + url.QueryEscape(q)
			}
			if rt.path == "/client-session" && !strings.Contains(q, "clientToken=") {
				q += "&clientToken=" + fx.token
			}
			path += "?" + q
		}
		if rt.patch {
			var m map[string]any
			if json.Unmarshal([]byte(input), &m) == nil && m != nil {
				if _, ok := m["clientToken"]; !ok {
					m["clientToken"] = fx.token
				}
				b, _ := json.Marshal(m)
				body = string(b)
			}
		}
		var hdr []string
		if rt.clientToken {
			hdr = append(hdr, "X-Client-Token", fx.token)
		}
		if rt.control {
			hdr = append(hdr, "X-API-VERSION", "")
		}
		w := fx.serve(rt.method, path, body, hdr...)
		checkAnswer(t, rt.method+" "+rt.path, w)
		if w.Code == 200 && rt.method == "POST" {
			var m map[string]any
			_ = json.Unmarshal(w.Body.Bytes(), &m)
			if tok, ok := m["clientToken"].(string); ok && rt.path == "/client-session" {
				checkReadable(t, fx.serve("GET", "/client-session?clientToken="+url.QueryEscape(tok), ""))
			}
			if id, ok := m["id"].(string); ok && (rt.path == "/payments" || rt.path == "/client/payments") {
				checkReadable(t, fx.serve("GET", "/payments/"+id, ""))
			}
		}
	})
}

func checkAnswer(t *testing.T, route string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code >= 500 && w.Code != http.StatusGatewayTimeout {
		t.Fatalf("%s: %d %s", route, w.Code, w.Body.Bytes())
	}
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("%s: %d, not JSON: %q", route, w.Code, w.Body.Bytes())
	}
	if w.Code < 400 {
		return
	}
	e, ok := m["error"].(map[string]any)
	if !ok || e["errorId"] == "" || e["errorId"] == nil || e["description"] == nil {
		t.Fatalf("%s: %d without the error envelope: %s", route, w.Code, w.Body.Bytes())
	}
	if e["errorId"] == string(simulator.CodeRequestValidationError) {
		ves, _ := e["validationErrors"].([]any)
		if len(ves) == 0 {
			t.Fatalf("%s: 422 without validationErrors: %s", route, w.Body.Bytes())
		}
	}
}

func checkReadable(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code != 200 {
		t.Fatalf("accepted, then unreadable: %d %s", w.Code, w.Body.Bytes())
	}
}

// FuzzDepth checks the nesting scan against the decoder: within the limit it
// says nothing; past it, it names a path, and it never calls valid JSON
// invalid.
func FuzzDepth(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[{"b":{}}]}`, strings.Repeat("[", 40) + strings.Repeat("]", 40), `{"a":"\"{{{{"}`, `[}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path, err := checkDepth(b)
		md := maxDepth(b)
		valid := json.Valid(b)
		switch {
		case md <= simulator.MaxDepth && (path != "" || err != nil):
			t.Fatalf("within the limit (%d) but path %q, err %v", md, path, err)
		case valid && err != nil:
			t.Fatalf("valid JSON called invalid: %v", err)
		case valid && md > simulator.MaxDepth && !strings.HasPrefix(path, "$"):
			t.Fatalf("too deep (%d) but no path", md)
		case err == nil && path != "" && md <= 10000 && !valid:
			t.Fatalf("invalid JSON accepted by the token walk")
		}
		if path != "" && err == nil {
			var v any
			dec := json.NewDecoder(bytes.NewReader(b))
			if dec.Decode(&v) == nil && treeDepthPath(v, "$", 1, simulator.MaxDepth) == "" {
				t.Fatalf("the token walk found %q too deep, the tree walk nothing", path)
			}
		}
	})
}
