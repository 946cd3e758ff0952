package webhooks

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// referenceBody is the payment body as RenderEvent wrote it before
// payload_encode.go: encoding/json over the DTOs, HTML escaping off, without
// the trailing newline.
func referenceBody(ev *simulator.Event, p *simulator.Payment) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(paymentEventBody{
		EventType: ev.Type, Date: ts(ev.CreatedAt), NotificationConfig: notificationConfig(ev.TenantID),
		Version: Version, Payment: toPaymentDTO(p),
	})
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Generation modes: random; every pointer, slice and map present and
// non-empty; every pointer present but every slice and map empty (non-nil)
// and every string empty; everything zero (nil).
const (
	modeRandom = iota
	modeFull
	modeEmpty
	modeZero
	numModes
)

// payGen fills a simulator.Payment by reflection, so that a field of the
// domain payment that toPaymentDTO maps is generated whether or not the
// appender knows it (a kind it cannot fill panics). Its choices come from rnd,
// or from the fuzz input when rnd is nil (zero once the input runs out).
type payGen struct {
	rnd  *rand.Rand
	in   []byte
	mode int
}

func (g *payGen) next() byte {
	if g.rnd != nil {
		return byte(g.rnd.Uint32())
	}
	if len(g.in) == 0 {
		return 0
	}
	b := g.in[0]
	g.in = g.in[1:]
	return b
}

func (g *payGen) u64() uint64 {
	var u uint64
	for range 8 {
		u = u<<8 | uint64(g.next())
	}
	return u
}

// some decides whether an optional part is there.
func (g *payGen) some() bool {
	switch g.mode {
	case modeFull, modeEmpty:
		return true
	case modeZero:
		return false
	}
	return g.next()%3 != 0
}

// count is the length of a present slice or map.
func (g *payGen) count() int {
	switch g.mode {
	case modeEmpty:
		return 0
	case modeFull:
		return 1 + int(g.next()%3)
	}
	return int(g.next() % 4)
}

// pieces are the string parts that stress the string encoding: HTML
// characters (not escaped here), quotes and backslashes, every named and
// unnamed control character, DEL, U+2028/U+2029, invalid and truncated
// UTF-8, multi-byte runes and U+FFFD itself.
var pieces = []string{
	"a", "Jane", "order-1", "4111", " ", "<", ">", "&", "<script>", `"`, `\`, "/", "\b", "\f", "\n", "\r", "\t",
	"\x00", "\x01", "\x1f", "\x7f", "\u2028", "\u2029", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "é", "日本",
	"😀", "\ufffd", "\u00a0", "%", "+",
}

func (g *payGen) str() string {
	if g.mode == modeEmpty || g.mode == modeZero {
		return ""
	}
	n := int(g.next() % 6)
	if g.mode == modeFull && n == 0 {
		n = 1
	}
	var b []byte
	for range n {
		if g.next()%8 == 0 { // an arbitrary byte
			b = append(b, g.next())
			continue
		}
		b = append(b, pieces[int(g.next())%len(pieces)]...)
	}
	return string(b)
}

var zones = []*time.Location{time.UTC, time.FixedZone("X", -5*3600-1800), time.FixedZone("Y", 14*3600)}

func (g *payGen) time() time.Time {
	if g.mode == modeZero || g.next()%16 == 0 {
		return time.Time{}
	}
	zone := zones[int(g.next())%len(zones)]
	if g.next()%8 == 0 { // a year of any width or sign, about the 1000 and 9999 edges too
		years := []int{-12345, -1, 0, 1, 999, 1000, 9999, 10000, 123456}
		return time.Date(years[int(g.next())%len(years)], time.Month(1+g.next()%12), int(1+g.next()%31),
			int(g.next()%24), int(g.next()%60), int(g.next()%60), int(g.u64()%1e9), zone)
	}
	// Years 1 to about 2600, any nanosecond, in some zone.
	sec := int64(g.u64()%(20_000_000_000)) - 62_135_596_800
	return time.Unix(sec, int64(g.u64()%1e9)).In(zone)
}

// metaValue is a free-form metadata value of the kinds a JSON body decodes
// to, plus json.Number; depth bounds nesting.
func (g *payGen) metaValue(depth int) any {
	switch k := g.next() % 8; {
	case k == 0:
		return nil
	case k == 1:
		return g.next()%2 == 0
	case k == 2:
		return float64(int64(g.u64())) / float64(1+g.next())
	case k == 3:
		return json.Number("12.50")
	case k == 4 && depth < 3:
		return g.meta(depth + 1)
	case k == 5 && depth < 3:
		out := make([]any, g.count())
		for i := range out {
			out[i] = g.metaValue(depth + 1)
		}
		return out
	}
	return g.str()
}

func (g *payGen) meta(depth int) map[string]any {
	m := map[string]any{}
	for range g.count() {
		m[g.str()] = g.metaValue(depth)
	}
	return m
}

var (
	timeType = reflect.TypeFor[time.Time]()
	metaType = reflect.TypeFor[map[string]any]()
)

func (g *payGen) fill(v reflect.Value) {
	switch t := v.Type(); {
	case t == timeType:
		v.Set(reflect.ValueOf(g.time()))
		return
	case t == metaType:
		if g.some() {
			v.Set(reflect.ValueOf(g.meta(0)))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(g.str())
	case reflect.Bool:
		v.SetBool(g.mode == modeFull || (g.mode == modeRandom && g.next()%2 == 1))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if g.mode != modeZero && g.mode != modeEmpty {
			switch g.next() % 4 {
			case 0:
				v.SetInt(0)
			case 1:
				v.SetInt(math.MinInt64 >> (64 - v.Type().Bits()))
			default:
				v.SetInt(int64(g.u64()) >> (64 - v.Type().Bits()))
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if g.mode != modeZero && g.mode != modeEmpty {
			v.SetUint(g.u64() >> (64 - v.Type().Bits()))
		}
	case reflect.Float32, reflect.Float64:
		if g.mode != modeZero && g.mode != modeEmpty {
			v.SetFloat(float64(g.next()) / 4)
		}
	case reflect.Pointer:
		if g.some() {
			v.Set(reflect.New(v.Type().Elem()))
			g.fill(v.Elem())
		}
	case reflect.Slice:
		if g.some() {
			v.Set(reflect.MakeSlice(v.Type(), g.count(), 4))
			for i := range v.Len() {
				g.fill(v.Index(i))
			}
		}
	case reflect.Map:
		if g.some() {
			v.Set(reflect.MakeMap(v.Type()))
			for range g.count() {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				g.fill(k)
				g.fill(e)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.fill(v.Field(i))
			}
		}
	case reflect.Interface:
		if g.some() {
			v.Set(reflect.ValueOf(g.metaValue(0)))
		}
	default:
		panic("payGen: cannot fill " + v.Type().String())
	}
}

// event is a payment event with a generated tenant, type and time.
func (g *payGen) event() *simulator.Event {
	typ := simulator.EventPaymentStatus
	if g.next()%2 == 1 {
		typ = simulator.EventPaymentRefund
	}
	return &simulator.Event{ID: "ev", TenantID: g.str(), Type: typ, CreatedAt: g.time()}
}

func (g *payGen) payment() *simulator.Payment {
	p := &simulator.Payment{}
	g.fill(reflect.ValueOf(p).Elem())
	return p
}

// checkBody compares RenderEvent's body with the reference for one event:
// the same bytes, or both an error with the same message.
func checkBody(t *testing.T, ev *simulator.Event, p *simulator.Payment) {
	t.Helper()
	want, wantErr := referenceBody(ev, p)
	got, err := Renderer{}.RenderEvent(ev, p, nil, nil)
	if wantErr != nil {
		require.Error(t, err, "encoding/json failed with %v", wantErr)
		assert.Equal(t, wantErr.Error(), err.Error())
		return
	}
	require.NoError(t, err)
	if !bytes.Equal(want, got) {
		t.Fatalf("body differs from encoding/json\nwant %s\n got %s", want, got)
	}
	assert.True(t, json.Valid(got))
	assert.Equal(t, 1, bytes.Count(got, []byte(signedAtSlot)))
}

// TestPaymentBodyMatchesEncodingJSON is the differential test of
// payload_encode.go: many generated payments in every generation mode.
func TestPaymentBodyMatchesEncodingJSON(t *testing.T) {
	for mode := range numModes {
		g := &payGen{rnd: rand.New(rand.NewPCG(uint64(mode), 9)), mode: mode}
		n := 2000
		if mode != modeRandom {
			n = 50
		}
		for range n {
			checkBody(t, g.event(), g.payment())
		}
	}
}

// TestPaymentBodyCases pins the shapes the generator reaches only by chance.
func TestPaymentBodyCases(t *testing.T) {
	ev := &simulator.Event{TenantID: "default", Type: simulator.EventPaymentStatus, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)}
	f := false
	cases := map[string]*simulator.Payment{
		"zero payment":           {},
		"empty customer":         {Customer: &simulator.Customer{}},
		"empty addresses":        {Customer: &simulator.Customer{BillingAddress: &simulator.Address{}, ShippingAddress: &simulator.Address{}}},
		"nil vs empty events":    {Transactions: []simulator.Transaction{{Events: nil}, {Events: []simulator.TransactionEvent{}}}},
		"empty transactions":     {Transactions: []simulator.Transaction{}},
		"empty metadata":         {Metadata: map[string]any{}},
		"html in metadata":       {Metadata: map[string]any{"<k>": "a&b\u2028", "n": json.Number("1e3")}},
		"final false amount nil": {Transactions: []simulator.Transaction{{Events: []simulator.TransactionEvent{{Final: &f}}}}},
		"empty risk data":        {RiskData: &simulator.RiskData{}},
		"zone and nanos":         {Date: time.Date(2026, 5, 6, 23, 59, 59, 999999999, time.FixedZone("Z", -3600))},
		"NaN metadata":           {Metadata: map[string]any{"x": math.NaN()}},
		"bad json.Number":        {Metadata: map[string]any{"x": json.Number("1x")}},
		"unsupported metadata":   {Metadata: map[string]any{"x": make(chan int)}},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) { checkBody(t, ev, p) })
	}
}

// TestNotificationConfigIDBeyondCache checks the cached ids, and the ids of
// tenants past the cache bound, against notificationConfig.
func TestNotificationConfigIDBeyondCache(t *testing.T) {
	for i := range maxCachedConfigIDs + 10 {
		id := "tenant-" + time.Unix(int64(i), 0).UTC().Format("150405") + string(rune('a'+i%26))
		require.Equal(t, notificationConfig(id).ID, notificationConfigID(id))
		require.Equal(t, notificationConfig(id).ID, notificationConfigID(id))
	}
	assert.LessOrEqual(t, cachedConfigIDs.Load(), int64(maxCachedConfigIDs))
}

// FuzzWebhookBody drives the payment generator from the fuzz input (its
// first byte picks the mode) and requires RenderEvent's payment body to be
// the reference's bytes. Seeds: testdata/fuzz/FuzzWebhookBody.
func FuzzWebhookBody(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{modeFull, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{modeEmpty})
	f.Add(bytes.Repeat([]byte{0x41, 0xff, 0x07, 0x80, 0x13}, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &payGen{in: data}
		if len(data) > 0 {
			g.mode, g.in = int(data[0]%numModes), data[1:]
		}
		checkBody(t, g.event(), g.payment())
	})
}
