package store

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// The generated code is what the generator makes of records.go today:
// regenerated into a temporary directory with the go:generate line's
// generator and flags, it is byte for byte records_gen.go (and its test).
func TestGeneratedRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	cmd := exec.Command(goBin, "tool", "-modfile=../../tools/msgp/go.mod", "msgp", "-file", "records.go",
		"-o", filepath.Join(dir, "records_gen.go"), "-io=false", "-unexported")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"records_gen.go", "records_gen_test.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.True(t, string(want) == string(got), "%s is stale: run go generate ./simulator/store", name)
	}
}

// fill sets every field of v, recursively, to a value other than its zero
// (n numbers them, so no two fields are alike): a kernel field that the
// record mapping leaves out fails the round trip below.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC).Add(time.Duration(*n) * time.Microsecond)))
		return
	case json.RawMessage:
		return // an event's body: its own test
	case map[string]any:
		v.Set(reflect.ValueOf(map[string]any{"s": fmt.Sprint("v", *n), "n": json.Number("1.50"), "b": true, "nil": nil,
			"deep": map[string]any{"l": []any{json.Number("-0"), "x", false, map[string]any{}}}}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n)
		fill(v.Index(1), n)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic("fill: " + v.Type().String())
	}
}

func filled[T any](tid string) *T {
	v := new(T)
	n := 0
	fill(reflect.ValueOf(v).Elem(), &n)
	if f := reflect.ValueOf(v).Elem().FieldByName("TenantID"); f.IsValid() {
		f.SetString(tid) // the key's, not the record's
	}
	return v
}

// Every member of every record reads back as written, each field of the
// kernel's types set (a card outside the catalogue, so stored whole; a
// plan whose account is no step's; transactions unlike their payment).
func TestRecordsRoundTripEveryField(t *testing.T) {
	const tid = "t1"
	tests := []struct {
		name string
		v    any
		back func(raw string) (any, error)
	}{
		{"payment", filled[simulator.Payment](tid), func(raw string) (any, error) { return decodePayment(raw, tid) }},
		{"session", filled[simulator.ClientSession](tid), func(raw string) (any, error) { return decodeSession(raw, tid) }},
		{"instrument", filled[simulator.Instrument](tid), func(raw string) (any, error) { return decodeInstrument(raw, tid) }},
		{"attempt", filled[simulator.Attempt](tid), func(raw string) (any, error) { return decodeAttempt(raw, tid) }},
		{"job", filled[simulator.Job](tid), func(raw string) (any, error) { return decodeJob(raw, tid) }},
		{"dispute", filled[simulator.Dispute](tid), func(raw string) (any, error) { return decodeDispute(raw, tid) }},
		{"tenant", filled[simulator.Tenant](""), func(raw string) (any, error) { return decodeTenant(raw, "") }},
		{"expired tenant", filled[simulator.ExpiredTenant](""), func(raw string) (any, error) { return decodeExpiredTenant(raw, "") }},
	}
	tests[6].v.(*simulator.Tenant).ID = "t9"
	tests[7].v.(*simulator.ExpiredTenant).TenantID = "t9"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pairs, err := encodeRecord("k", tt.v)
			require.NoError(t, err)
			require.Equal(t, byte(recV2), pairs[0][1][0])
			got, err := tt.back(pairs[0][1])
			require.NoError(t, err)
			assert.Equal(t, tt.v, got)
		})
	}

	t.Run("event", func(t *testing.T) {
		e := filled[simulator.Event](tid)
		e.Body, e.Dispute.Then = nil, nil // a body is the body form's; a dispute's steps to come are no body's
		e.Payment.TenantID, e.Dispute.TenantID = tid, tid
		pairs, err := encodeRecord("k", e)
		require.NoError(t, err)
		require.Equal(t, e.PaymentID, eventPaymentID(pairs[0][1]))
		st, err := decodeEventStore(pairs[0][1])
		require.NoError(t, err)
		got := st.R.event(tid)
		got.Body, got.Version = nil, simulator.APIVersion(st.V)
		var p payRecord
		_, err = p.UnmarshalMsg(st.P)
		require.NoError(t, err)
		got.Payment, err = p.payment(tid)
		require.NoError(t, err)
		var d disputeRecord
		_, err = d.UnmarshalMsg(st.D)
		require.NoError(t, err)
		got.Dispute = d.dispute(tid)
		assert.Equal(t, e, got)
	})

	t.Run("observer's record", func(t *testing.T) {
		rep := filled[observe.ReportCounts](tid)
		pairs, err := encodeRecord(kObserved("rep"), rep)
		require.NoError(t, err)
		got := new(observe.ReportCounts)
		require.NoError(t, decodeObserved(pairs[0][1], got))
		assert.Equal(t, rep, got)
		_, err = encodeRecord("pay:p1", rep)
		assert.Error(t, err, "only an observer's key takes an observer's value")
	})

	t.Run("event in the body form", func(t *testing.T) {
		e := filled[simulator.Event](tid)
		e.Payment, e.Dispute, e.Body = nil, nil, json.RawMessage(`{"eventType":"PAYMENT.STATUS"}`)
		pairs, err := encodeRecord("k", e)
		require.NoError(t, err)
		st, err := decodeEventStore(pairs[0][1])
		require.NoError(t, err)
		assert.JSONEq(t, string(e.Body), string(st.B))
	})
}

// A free-form member's numbers keep their text, its nesting and its nulls.
func TestFreeFormReadsBackAsWritten(t *testing.T) {
	m := freeMap{"n": json.Number("12345678901234567890.000"), "neg": json.Number("-1e-7"), "s": "1.50", "t": true, "nil": nil,
		"list": []any{json.Number("0"), "x", nil, []any{}, map[string]any{"k": json.Number("2")}}, "empty": map[string]any{}}
	b, err := m.MarshalMsg(nil)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(b), m.Msgsize())
	var got freeMap
	rest, err := got.UnmarshalMsg(b)
	require.NoError(t, err)
	assert.Empty(t, rest)
	assert.Equal(t, m, got)

	_, err = freeMap{"f": func() {}}.MarshalMsg(nil)
	assert.Error(t, err, "a value JSON never decodes to is refused, not stored wrong")
}

// A record damaged in place (one byte changed, the length the same) reads
// as an error or as some value, never a panic or an allocation its bytes
// cannot hold: a length byte turned into a 32-bit array, map, string or
// binary header among them.
func TestDamagedRecordsDoNotPanic(t *testing.T) {
	pay, ev, cs := typicalRecords()
	pay.Metadata = map[string]any{"l": []any{json.Number("1"), "x", map[string]any{"k": nil}}}
	payV, err := encodePayment(pay)
	require.NoError(t, err)
	st, err := eventInputs(ev, nil)
	require.NoError(t, err)
	evV, err := eventValue(&st)
	require.NoError(t, err)
	csV, err := marshal(sessionRecordOf(cs))
	require.NoError(t, err)
	readers := []struct {
		name, raw string
		read      func(string) error
	}{
		{"payment", payV, func(v string) error { _, err := decodePayment(v, "t1"); return err }},
		{"event", evV, func(v string) error {
			st, err := decodeEventStore(v)
			if err != nil {
				return err
			}
			var p payRecord
			if _, err := p.UnmarshalMsg(st.P); err != nil {
				return err
			}
			_, err = p.payment("t1")
			return err
		}},
		{"session", csV, func(v string) error { _, err := decodeSession(v, "t1"); return err }},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			errs := 0
			for i := 1; i < len(r.raw); i++ {
				for _, c := range []byte{0x00, 0x7f, 0xc1, 0xc5, 0xc6, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xff} {
					b := []byte(r.raw)
					b[i] = c
					require.NotPanics(t, func() {
						if r.read(string(b)) != nil {
							errs++
						}
					}, "byte %d set to %#x", i, c)
				}
			}
			assert.Positive(t, errs)
		})
	}
}
