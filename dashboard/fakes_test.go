package dashboard

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// fakeWebhooks stands in for the webhooks dispatcher (another package).
type fakeWebhooks struct {
	mu       sync.Mutex
	endpoint string
	version  string
	events   []WebhookEvent
	replayed []string
	// svc, when set, rotates the tenant's secret for real (as the webhooks
	// source does), which ends the tenant's sessions.
	svc *service.Service
}

func (f *fakeWebhooks) Endpoint(*simulator.Tenant) (WebhookEndpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return WebhookEndpoint{URL: f.endpoint, Version: string(simulator.APIVersion(f.version).Or())}, nil
}

func (f *fakeWebhooks) SetEndpoint(_ *simulator.Tenant, u, version string) error {
	if err := simulator.CheckWebhookURL(u); err != nil {
		return simulator.ValidationError("WebhookEndpoint", simulator.FieldError{Path: "$.url", Description: err.Error()})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endpoint = u
	if version != "" {
		f.version = version
	}
	return nil
}

func (f *fakeWebhooks) Events(_ *simulator.Tenant, paymentID string, limit int) ([]WebhookEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []WebhookEvent
	for _, e := range f.events {
		if paymentID == "" || e.PaymentID == paymentID {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeWebhooks) Replay(_ context.Context, t *simulator.Tenant, id string) (WebhookAttempt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replayed = append(f.replayed, t.ID+":"+id)
	return WebhookAttempt{StatusCode: 200, Latency: 5 * time.Millisecond}, nil
}

func (f *fakeWebhooks) DeliverNow(context.Context, *simulator.Tenant) (int, int, error) {
	return 2, 1, nil
}

func (f *fakeWebhooks) RotateSecret(t *simulator.Tenant) (string, error) {
	if f.svc == nil {
		return "new-secret", nil
	}
	cur, err := f.svc.RotateSecret(t)
	if err != nil {
		return "", err
	}
	return cur.SigningSecret, nil
}

// fakeScenarios validates one rule: a `card:` value must be quoted text.
type fakeScenarios struct {
	mu         sync.Mutex
	yaml       string
	explain    Explanation
	lastSample string
}

func (f *fakeScenarios) Rules(*simulator.Tenant) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.yaml, "tenant", nil
}

func (f *fakeScenarios) Apply(_ *simulator.Tenant, doc string) ([]ScenarioProblem, error) {
	var problems []ScenarioProblem
	for i, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, "card: 1") {
			problems = append(problems, ScenarioProblem{Line: i + 1, Message: "when.card must be a string"})
		}
	}
	if len(problems) > 0 {
		return problems, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.yaml = doc
	return nil, nil
}

func (f *fakeScenarios) Reset(*simulator.Tenant) error { return nil }

func (f *fakeScenarios) ExplainPayment(*simulator.Tenant, string) (Explanation, error) {
	return f.explain, nil
}

func (f *fakeScenarios) ExplainRequest(_ *simulator.Tenant, req string) (Explanation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastSample = req
	return f.explain, nil
}

// fakeJournal stands in for the request journal.
type fakeJournal struct{ entries []JournalEntry }

func (f *fakeJournal) Requests(*simulator.Tenant, string, int) ([]JournalEntry, error) {
	return f.entries, nil
}
