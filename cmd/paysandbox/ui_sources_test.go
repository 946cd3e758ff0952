package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/dashboard"
	"github.com/paysandbox/paysandbox/webhooks"
)

// TestWebhookNon2xxHint: the dispatcher's failed attempts reach the journal's
// hints (GET /_sandbox/hints, kind webhook-non-2xx, the event in
// latestEventIds); a 2xx or a tenant without an endpoint gives none.
func TestWebhookNon2xxHint(t *testing.T) {
	refused := func(*testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return "http://" + addr + "/"
	}
	cases := []struct {
		name    string
		answer  http.HandlerFunc
		url     func(t *testing.T) string // nil: the receiver; "" from it: no endpoint
		hint    bool
		message string
	}{
		{"500", answer(500), nil, true, "answered event %s with 500"},
		{"connection refused", nil, refused, true, "could not be reached for event %s (Post"},
		{"200", answer(200), nil, false, ""},
		{"no endpoint", nil, func(*testing.T) string { return "" }, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t)
			a.useNewTenant()
			url := ""
			if tc.url != nil {
				url = tc.url(t)
			} else {
				url = newReceiver(t, tc.answer).URL
			}
			if url != "" {
				a.setEndpoint(url)
			}
			pid := a.pay(1000, "4111111111111111").Str("id")
			a.advance("1ns") // the first attempt has run when this answers
			ev := a.events(pid)[0]
			require.NotEmpty(t, ev["attempts"], "an attempt was made")

			var got map[string]any
			for _, s := range a.must(200, "GET", "/_sandbox/hints", nil, "X-API-VERSION:").JSON["data"].([]any) {
				if m := s.(map[string]any); m["kind"] == "webhook-non-2xx" {
					got = m
				}
			}
			if !tc.hint {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got, "webhook-non-2xx in GET /_sandbox/hints")
			assert.Equal(t, float64(1), got["count"], "one failed attempt: the payment's next event waits behind it")
			assert.Equal(t, []any{ev["id"]}, got["latestEventIds"])
			assert.Contains(t, got["lastMessage"], strings.ReplaceAll(tc.message, "%s", ev["id"].(string)))
			assert.Contains(t, got["fix"], "2xx")
		})
	}
}

// TestUISources: the dashboard's sources over the real service, dispatcher,
// scenario engine and journal, as the composition root wires them.
func TestUISources(t *testing.T) {
	a := newTestApp(t)
	id, _ := a.useNewTenant()
	ten, err := a.Svc.Tenant(id)
	require.NoError(t, err)
	ctx := context.Background()
	src := dashboard.Options{}
	a.UISources(&src)

	t.Run("webhooks: each attempt as sent and answered", func(t *testing.T) {
		wh := src.Webhooks
		rc := newReceiver(t, answer(500))
		require.Error(t, wh.SetEndpoint(ten, "ftp://nope", ""))
		require.Error(t, wh.SetEndpoint(ten, "", ""), "the service keeps an endpoint once set")
		require.Error(t, wh.SetEndpoint(ten, rc.URL, "2.0"))
		require.NoError(t, wh.SetEndpoint(ten, rc.URL, "2.3"))
		require.NoError(t, wh.SetEndpoint(ten, rc.URL, ""))
		got, err := wh.Endpoint(ten)
		require.NoError(t, err)
		assert.Equal(t, dashboard.WebhookEndpoint{URL: rc.URL, Version: "2.3"}, got)

		pid := a.pay(1000, "4111111111111111").Str("id")
		a.advance("1ns")
		evs, err := wh.Events(ten, pid, 10)
		require.NoError(t, err)
		require.Len(t, evs, 2, "PENDING and AUTHORIZED")
		first := evs[1] // newest first
		require.Len(t, first.Attempts, 1)
		at := first.Attempts[0]
		sent := rc.deliveries()
		require.Len(t, sent, 1)
		assert.Equal(t, 500, at.StatusCode)
		assert.Equal(t, `{"ok":500}`, at.Response, "the start of the answer")
		assert.Equal(t, string(sent[0].Body), at.Body, "the exact body sent, signedAt included")
		assert.Equal(t, at.Body, first.Body)
		for k, v := range at.Headers {
			assert.Equal(t, sent[0].Header.Get(k), v, k)
		}
		assert.Equal(t, first.ID, at.Headers["X-Event-Id"])
		assert.NoError(t, webhooks.Verify(ten.SigningSecret, []byte(at.Body), at.Headers["X-Signature-Primary"]))
		assert.Empty(t, evs[0].Attempts, "the payment's next event waits behind the failing one")

		rc.setAnswer(answer(200))
		a.advance("1m") // a new signedAt for the replay
		rep, err := wh.Replay(ctx, ten, first.ID)
		require.NoError(t, err)
		assert.Equal(t, 200, rep.StatusCode)
		assert.Equal(t, "replay", rep.Kind)
		sent = rc.deliveries()
		assert.Equal(t, string(sent[len(sent)-1].Body), rep.Body)
		_, err = wh.Replay(ctx, ten, "nope")
		assert.ErrorContains(t, err, "No webhook event")

		ok, failed, err := wh.DeliverNow(ctx, ten) // the AUTHORIZED event, unless the background loop was first
		require.NoError(t, err)
		assert.LessOrEqual(t, ok, 1)
		assert.Zero(t, failed)
		evs, err = wh.Events(ten, pid, 10)
		require.NoError(t, err)
		assert.Equal(t, []string{"DELIVERED", "DELIVERED"}, []string{evs[0].Status, evs[1].Status})

		secret, err := wh.RotateSecret(ten)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	})

	t.Run("scenarios: rules, line-numbered problems, apply, explain, reset", func(t *testing.T) {
		sc := src.Scenarios
		doc, from, err := sc.Rules(ten)
		require.NoError(t, err)
		assert.Equal(t, "the built-in scenarios.yaml", from)
		assert.Contains(t, doc, "generic-decline")

		problems, err := sc.Apply(ten, "rules:\n  - name: broken\n    when: {card: 4000}\n    authorize: DECLINED\n")
		require.NoError(t, err)
		require.Len(t, problems, 2)
		assert.Equal(t, 3, problems[0].Line)
		assert.Contains(t, problems[0].Message, `card "4000" is not 12-19 digits`)
		assert.False(t, strings.HasPrefix(problems[0].Message, "line"), problems[0].Message)
		assert.Equal(t, 4, problems[1].Line)

		good := "rules:\n  - name: big-declines\n    when: { amount: { min: 5000 } }\n    authorize: { status: DECLINED }\n"
		problems, err = sc.Apply(ten, good)
		require.NoError(t, err)
		assert.Empty(t, problems)
		doc, from, err = sc.Rules(ten)
		require.NoError(t, err)
		assert.Equal(t, good, doc)
		assert.Contains(t, from, "this tenant's own rules")

		ex, err := sc.ExplainRequest(ten, `{"amount": 6000, "currencyCode": "EUR", "card": "4111111111111111"}`)
		require.NoError(t, err)
		assert.Equal(t, "big-declines", ex.Rule)
		assert.Equal(t, []string{"big-declines: matches (amount 6000 is at least 5000)"}, ex.Reasons)
		ex, err = sc.ExplainRequest(ten, `{"amount": 100, "paymentMethod": {"number": "4111111111111111"}}`)
		require.NoError(t, err)
		assert.Equal(t, "(none: the default processor authorizes)", ex.Rule)
		_, err = sc.ExplainRequest(ten, `{"amout": 100}`)
		assert.ErrorContains(t, err, "the sample must be a JSON object")

		p := a.pay(6000, "4111111111111111")
		assert.Equal(t, "DECLINED", p.Str("status"))
		ex, err = sc.ExplainPayment(ten, p.Str("id"))
		require.NoError(t, err)
		assert.Equal(t, "big-declines", ex.Rule)
		assert.True(t, strings.HasPrefix(ex.Reasons[0], "at creation: "), ex.Reasons[0])
		_, err = sc.ExplainPayment(ten, "nope")
		assert.Error(t, err)

		require.NoError(t, sc.Reset(ten))
		_, from, err = sc.Rules(ten)
		require.NoError(t, err)
		assert.Equal(t, "the built-in scenarios.yaml", from)
	})

	t.Run("journal: a payment's requests, newest first", func(t *testing.T) {
		p := a.pay(1000, "4111111111111111")
		pid := p.Str("id")
		a.must(200, "GET", "/payments/"+pid, nil)
		reqs, err := src.Journal.Requests(ten, pid, 10)
		require.NoError(t, err)
		require.Len(t, reqs, 2)
		assert.Equal(t, "GET", reqs[0].Method)
		assert.Equal(t, "/payments/"+pid, reqs[0].Path)
		assert.Equal(t, "POST", reqs[1].Method)
		assert.Equal(t, 200, reqs[1].Status)
		cur, err := a.Svc.Tenant(ten.ID)
		require.NoError(t, err)
		assert.Equal(t, a.Svc.Now(cur), reqs[1].At, "on the tenant clock")
		require.NotEmpty(t, reqs[1].Hints)
		assert.True(t, strings.HasPrefix(reqs[1].Hints[0], "missing-idempotency-key: "), reqs[1].Hints[0])
		assert.Contains(t, reqs[1].ResponseBody, pid)
	})
}
