package redact

import (
	"io"
	"log/slog"
	"testing"
)

// lazyAddr stands for a LogValuer attribute (the request line's client).
type lazyAddr struct{}

func (lazyAddr) LogValue() slog.Value { return slog.StringValue("192.0.2.7") }

// BenchmarkHandler logs the request line of an API call (nothing to mask)
// through the JSON handler alone (plain) and through Handler (masked).
func BenchmarkHandler(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"plain", slog.NewJSONHandler(io.Discard, nil)},
		{"masked", Handler(slog.NewJSONHandler(io.Discard, nil))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			log := slog.New(bc.h)
			b.ReportAllocs()
			for b.Loop() {
				log.Info("request", "method", "GET", "path", "/payments/3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c",
					"status", 200, "latency", "153µs", "client", lazyAddr{}, "tenant", "t_6c0d2b1e")
			}
		})
	}
}
