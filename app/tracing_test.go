package app

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/tracing"
)

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
