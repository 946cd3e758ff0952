package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler wraps a slog handler so that what it writes is masked as Bytes
// masks text: the message, string and error values, numbers that are card
// numbers, any value under a security-code key, inside groups too. Values
// with nothing to mask pass as they are.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ h slog.Handler }

func (r handler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r handler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = maskAttr(a)
	}
	return handler{r.h.WithAttrs(masked)}
}

func (r handler) WithGroup(name string) slog.Handler { return handler{r.h.WithGroup(name)} }

func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if SecurityKey(a.Key) && v.Kind() != slog.KindGroup {
		return slog.String(a.Key, Marker)
	}
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); needsPass(s, false) {
			return slog.String(a.Key, String(s))
		}
	case slog.KindInt64, slog.KindUint64:
		if s := v.String(); len(s) >= 12 {
			if m := String(s); m != s {
				return slog.String(a.Key, m)
			}
		}
	case slog.KindGroup:
		as := v.Group()
		masked := make([]any, len(as))
		for i, g := range as {
			masked[i] = maskAttr(g)
		}
		return slog.Group(a.Key, masked...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case fmt.Stringer:
			s = x.String()
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprintf("%+v", x)
		}
		if m := String(s); m != s {
			return slog.String(a.Key, m)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
