package main

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/paysandbox/paysandbox/tracing"
)

// otlpSpan is a span as an OTLP/HTTP receiver decoded it.
type otlpSpan struct {
	Name, TraceID, SpanID, Parent string
	Service                       string            // the resource's service.name
	Attrs                         map[string]string // values as text
	Links                         [][2]string       // trace id, span id
}

// otlpReceiver is an in-process OTLP/HTTP trace receiver: it decodes each
// export request (protobuf, the exporter's default) and keeps its spans.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []otlpSpan
	paths []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	o := &otlpReceiver{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		o.mu.Lock()
		o.paths = append(o.paths, r.URL.Path)
		for _, rs := range req.ResourceSpans {
			service := attrs(rs.GetResource().GetAttributes())["service.name"]
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					sp := otlpSpan{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
						Parent: hex.EncodeToString(s.ParentSpanId), Service: service, Attrs: attrs(s.Attributes)}
					for _, l := range s.Links {
						sp.Links = append(sp.Links, [2]string{hex.EncodeToString(l.TraceId), hex.EncodeToString(l.SpanId)})
					}
					o.spans = append(o.spans, sp)
				}
			}
		}
		o.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(o.Close)
	return o
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out[kv.Key] = v.GetStringValue()
		default:
			out[kv.Key] = fmt.Sprint(v.GetIntValue())
		}
	}
	return out
}

// received is what the receiver got so far, once the app's tracer
// exported every span that ended.
func (o *otlpReceiver) received(t *testing.T, a *testApp) []otlpSpan {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, a.tracing.tracer.Flush(ctx))
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range o.paths {
		require.Equal(t, "/v1/traces", p, "a base URL exports to its /v1/traces")
	}
	return append([]otlpSpan(nil), o.spans...)
}

// named answers the spans of trace traceID named name.
func named(spans []otlpSpan, traceID, name string) []otlpSpan {
	var out []otlpSpan
	for _, s := range spans {
		if s.TraceID == traceID && s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// With --otel-endpoint, a request that carries a traceparent is continued:
// its span has the route template as its name, the status, the tenant and
// the API version, and children for rule matching, each processor step
// (the fallback's too), and the store commit. The webhook delivery of the
// event it caused is a span of the same trace, linked to the request, and
// the webhook request carries its traceparent. A virtual-clock job a clock
// advance runs is a span of the advance's trace.
func TestTracingExport(t *testing.T) {
	otlp := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:1/v1/traces") // the flag wins
	cfg := testConfig()
	cfg.OtelEndpoint = otlp.URL
	a := startApp(t, cfg)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)

	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	pt := a.tokenize(a.session(plainSession(4051)), numOK).Str("token") // 4051: STRIPE soft-declines, ADYEN authorizes
	pid := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt},
		"traceparent: 00-"+traceID+"-"+parent+"-01").Str("id")
	a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.STATUS&status=DELIVERED&timeout=10s", nil)

	spans := otlp.received(t, a)
	reqs := named(spans, traceID, "POST /payments")
	require.Len(t, reqs, 1, "the request's span continues the incoming trace: %+v", spans)
	req := reqs[0]
	assert.Equal(t, parent, req.Parent)
	assert.Equal(t, "paysandbox", req.Service)
	assert.Equal(t, "200", req.Attrs["http.response.status_code"])
	assert.Equal(t, "/payments", req.Attrs["http.route"])
	assert.Equal(t, "default", req.Attrs["paysandbox.tenant.id"])
	assert.Equal(t, "2.4", req.Attrs["paysandbox.api.version"])

	match := named(spans, traceID, "scenario.match")
	require.Len(t, match, 1)
	assert.Equal(t, req.SpanID, match[0].Parent)
	assert.Equal(t, "soft-decline-then-fallback", match[0].Attrs["paysandbox.scenario.rule"])
	commit := named(spans, traceID, "store.commit")
	require.NotEmpty(t, commit)
	assert.Equal(t, req.SpanID, commit[0].Parent)
	steps := named(spans, traceID, "processor.authorize")
	require.Len(t, steps, 2, "one span per processor step, the fallback's included")
	var tried []string
	for _, s := range steps {
		assert.Equal(t, req.SpanID, s.Parent)
		tried = append(tried, s.Attrs["paysandbox.processor.name"]+" "+s.Attrs["paysandbox.processor.status"])
	}
	assert.ElementsMatch(t, []string{"STRIPE DECLINED", "ADYEN AUTHORIZED"}, tried)

	hooks := named(spans, traceID, "webhook PAYMENT.STATUS")
	require.NotEmpty(t, hooks, "the delivery joins the trace of the request that caused its event")
	hook := hooks[0]
	assert.Equal(t, req.SpanID, hook.Parent)
	assert.Contains(t, hook.Links, [2]string{traceID, req.SpanID}, "linked to the request")
	assert.Equal(t, pid, hook.Attrs["paysandbox.payment.id"])
	got := rc.deliveries()
	require.NotEmpty(t, got)
	tp := strings.Split(got[0].Header.Get("Traceparent"), "-")
	require.Len(t, tp, 4, "the webhook request carries a W3C traceparent: %v", got[0].Header)
	assert.Equal(t, traceID, tp[1], "the merchant's trace joins the sandbox's")
	var ids []string
	for _, h := range hooks {
		ids = append(ids, h.SpanID)
	}
	assert.Contains(t, ids, tp[2], "the traceparent names the delivery's span")
	for _, d := range got {
		assert.Empty(t, d.Header.Get("Tracestate"))
	}

	// ADYEN captures asynchronously: a settle job 30s later, run by an advance.
	a.must(200, "POST", "/payments/"+pid+"/capture", map[string]any{})
	const advanceTrace = "0af7651916cd43dd8448eb211c80319c"
	a.must(200, "POST", "/_sandbox/clock/advance", map[string]any{"duration": "1m"}, "traceparent: 00-"+advanceTrace+"-b7ad6b7169203331-01")
	spans = otlp.received(t, a)
	adv := named(spans, advanceTrace, "POST /_sandbox/clock/advance")
	require.Len(t, adv, 1)
	jobs := named(spans, advanceTrace, "job settle")
	require.Len(t, jobs, 1, "the virtual-clock job is a span of the advance: %+v", spans)
	assert.Equal(t, adv[0].SpanID, jobs[0].Parent)
	assert.Equal(t, pid, jobs[0].Attrs["paysandbox.payment.id"])
	jobCommits := 0
	for _, s := range named(spans, advanceTrace, "store.commit") {
		if s.Parent == jobs[0].SpanID {
			jobCommits++
		}
	}
	assert.Equal(t, 1, jobCommits, "the job's commit is its child")
}

// The standard variable alone turns tracing on. Health probes are not traced.
func TestTracingFromEnv(t *testing.T) {
	otlp := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.URL)
	a := newTestApp(t)
	r := a.req("GET", "/_sandbox/clock", nil, "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	require.Equal(t, 200, r.Status)
	require.Equal(t, 200, a.req("GET", "/healthz", nil, "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").Status)
	spans := otlp.received(t, a)
	assert.Len(t, named(spans, "4bf92f3577b34da6a3ce929d0e0e4736", "GET /_sandbox/clock"), 1)
	assert.Empty(t, named(spans, "4bf92f3577b34da6a3ce929d0e0e4736", "GET /healthz"), "health probes make no span")
}

// Without an endpoint nothing is traced: no tracer, and a webhook request
// carries no traceparent, even when the request that caused it did.
func TestTracingOff(t *testing.T) {
	a := startApp(t, testConfig())
	require.Nil(t, a.tracing.tracer)
	rc := newReceiver(t, answer(200))
	a.setEndpoint(rc.URL)
	pt := a.tokenize(a.session(plainSession(1000)), numOK).Str("token")
	pid := a.must(200, "POST", "/payments", map[string]any{"paymentMethodToken": pt},
		"traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").Str("id")
	a.must(200, "GET", "/_sandbox/webhooks/wait?paymentId="+pid+"&type=PAYMENT.STATUS&status=DELIVERED&timeout=10s", nil)
	got := rc.deliveries()
	require.NotEmpty(t, got)
	for _, d := range got {
		assert.Empty(t, d.Header.Get("Traceparent"))
	}
}

// Tracing is on when the flag (or its key or PAYSANDBOX_OTEL_ENDPOINT) or
// one of the standard OTLP endpoint variables is set; the flag wins.
func TestTracingConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	tests := []struct {
		name     string
		endpoint string
		env      map[string]string
		on       bool
	}{
		{"nothing set", "", nil, false},
		{"flag", "http://localhost:4318", nil, true},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{"empty variable", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.OtelEndpoint = tt.endpoint
			tr, err := openTracing(cfg, env(tt.env), tracing.Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.on, tr.tracer != nil)
			assert.Equal(t, tt.on, tr.service != nil && tr.http != nil && tr.webhooks != nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			require.NoError(t, tr.close(ctx))
		})
	}

	for _, bad := range []string{"localhost:4318", "ftp://collector", "http://"} {
		cfg := testConfig()
		cfg.OtelEndpoint = bad
		assert.ErrorContains(t, cfg.Validate(), "otel_endpoint: ", bad)
	}
}
