package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// config is where the shop's payment API is and how it authenticates:
// the URL, API key and webhook signing secret of a sandbox tenant.
type config struct {
	APIURL, APIKey, SigningSecret string
}

// shop keeps orders in memory. An order's status is what the payment
// provider's verified webhooks said of its latest payment: the answer to
// the payment request is shown to the shopper, the webhook is trusted.
type shop struct {
	cfg  config
	http *http.Client

	mu       sync.Mutex
	orders   map[string]*order
	statuses map[string]string // payment id -> the status its latest webhook announced
}

type order struct {
	ID        string
	Amount    int
	Currency  string
	PaymentID string // the latest payment's
	payments  int    // payments tried, for their idempotency keys
}

func newShop(cfg config) *shop {
	return &shop{cfg: cfg, http: &http.Client{Timeout: 30 * time.Second},
		orders: map[string]*order{}, statuses: map[string]string{}}
}

// routes are the shop's HTTP API:
//
//	POST /orders {amount, currencyCode}  201 {orderId, clientToken} (the browser's checkout SDK takes the token)
//	POST /orders/{id}/pay {paymentMethodToken}  {orderId, paymentId, status}
//	POST /orders/{id}/ship  {orderId, paymentId, status}: the payment captured
//	GET  /orders/{id}  {orderId, amount, currencyCode, paymentId, status}
//	POST /webhooks  the payment provider's webhooks
func (s *shop) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders", s.createOrder)
	mux.HandleFunc("POST /orders/{id}/pay", s.pay)
	mux.HandleFunc("POST /orders/{id}/ship", s.ship)
	mux.HandleFunc("GET /orders/{id}", s.getOrder)
	mux.HandleFunc("POST /webhooks", s.webhook)
	return mux
}

func (s *shop) createOrder(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Amount   int    `json:"amount"`
		Currency string `json:"currencyCode"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Amount <= 0 || req.Currency == "" {
		http.Error(w, "want {amount, currencyCode}", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	o := &order{ID: "order-" + strconv.Itoa(len(s.orders)+1), Amount: req.Amount, Currency: req.Currency}
	s.orders[o.ID] = o
	s.mu.Unlock()
	var session struct {
		ClientToken string `json:"clientToken"`
	}
	if err := s.api(r.Context(), "POST", "/client-session", "", map[string]any{"orderId": o.ID, "amount": o.Amount, "currencyCode": o.Currency}, &session); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"orderId": o.ID, "clientToken": session.ClientToken})
}

// pay pays the order with the token the browser sent; a declined order
// may be paid again (a new payment, a new idempotency key).
func (s *shop) pay(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token string `json:"paymentMethodToken"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Token == "" {
		http.Error(w, "want {paymentMethodToken}", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	o, ok := s.orders[r.PathValue("id")]
	var key string
	if ok {
		o.payments++
		key = fmt.Sprintf("%s-payment-%d", o.ID, o.payments)
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	var p struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := s.api(r.Context(), "POST", "/payments", key, map[string]any{"paymentMethodToken": req.Token}, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	s.mu.Lock()
	o.PaymentID = p.ID
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"orderId": o.ID, "paymentId": p.ID, "status": p.Status})
}

// ship captures the order's payment.
func (s *shop) ship(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	o, ok := s.orders[r.PathValue("id")]
	var id string
	if ok {
		id = o.PaymentID
	}
	s.mu.Unlock()
	if id == "" {
		http.Error(w, "no such order, or not paid", http.StatusNotFound)
		return
	}
	var p struct {
		Status string `json:"status"`
	}
	if err := s.api(r.Context(), "POST", "/payments/"+id+"/capture", id+"-capture", map[string]any{}, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"orderId": o.ID, "paymentId": id, "status": p.Status})
}

func (s *shop) getOrder(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[r.PathValue("id")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"orderId": o.ID, "amount": o.Amount, "currencyCode": o.Currency,
		"paymentId": o.PaymentID, "status": s.statuses[o.PaymentID]})
}

// webhook verifies the signature of the raw body (either header: a secret
// rotation never breaks it), then records the payment's status. Statuses
// are kept per payment, so an event that arrives before the payment
// request's answer, or one of an earlier payment of the order, lands where
// it belongs; recording one twice changes nothing, so a duplicate delivery
// needs no bookkeeping.
func (s *shop) webhook(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || !(signed(s.cfg.SigningSecret, raw, r.Header.Get("X-Signature-Primary")) ||
		signed(s.cfg.SigningSecret, raw, r.Header.Get("X-Signature-Secondary"))) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var ev struct {
		EventType string `json:"eventType"`
		Payment   struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"payment"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	if ev.EventType == "PAYMENT.STATUS" && ev.Payment.ID != "" {
		s.mu.Lock()
		s.statuses[ev.Payment.ID] = ev.Payment.Status
		s.mu.Unlock()
	}
	w.WriteHeader(http.StatusOK)
}

// signed reports whether header is base64(HMAC-SHA256(secret, body)),
// compared in constant time.
func signed(secret string, body []byte, header string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return header != "" && hmac.Equal([]byte(want), []byte(header))
}

// api calls the payment API (version 2.4) and decodes a 2xx answer into
// out; anything else is an error carrying the API's error body.
func (s *shop) api(ctx context.Context, method, path, idempotencyKey string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, s.cfg.APIURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", s.cfg.APIKey)
	req.Header.Set("X-API-VERSION", "2.4")
	req.Header.Set("Content-Type", "application/json")
	if idempotencyKey != "" {
		req.Header.Set("X-Idempotency-Key", idempotencyKey)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
