package storeconv

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
)

// The records of the layouts before format 1, frozen: JSON records (a value
// that starts with '{'), and CBOR records behind the version byte 0x01
// (RFC 8949, members named by the types' json tags, times RFC 3339 with
// nanoseconds, a json.Number under tag 100001). The types below are the
// store's record types as those layouts wrote them, every member any of
// them had; decodeRecord turns a record into the kernel's value. Kernel
// types stored whole (tenants, sessions, attempts, jobs, disputes) decode
// by their own json tags.

const (
	cborV1        = 0x01
	tagJSONNumber = 100001
)

var decMode = func() cbor.DecMode {
	tags := cbor.NewTagSet()
	if err := tags.Add(cbor.TagOptions{EncTag: cbor.EncTagRequired, DecTag: cbor.DecTagRequired},
		reflect.TypeFor[json.Number](), tagJSONNumber); err != nil {
		panic(err)
	}
	dm, err := cbor.DecOptions{
		DefaultMapType:   reflect.TypeFor[map[string]any](),
		UTF8:             cbor.UTF8DecodeInvalid,
		MaxArrayElements: 1 << 24, MaxMapPairs: 1 << 24,
		MaxNestedLevels: 128,
	}.DecModeWithTags(tags)
	if err != nil {
		panic(err)
	}
	return dm
}()

var errUnknown = errors.New("a record of no format this build converts")

// isJSON reports whether raw is a JSON record.
func isJSON(raw string) bool { return len(raw) > 0 && raw[0] == '{' }

// decode reads one record, JSON or CBOR, into v.
func decode(raw string, v any) error {
	switch {
	case isJSON(raw):
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber() // free-form values (metadata) keep their exact numbers
		return dec.Decode(v)
	case len(raw) > 0 && raw[0] == cborV1:
		return decMode.Unmarshal([]byte(raw[1:]), v)
	}
	return errUnknown
}

// shippedCards is the test-card catalogue the records refer to.
var shippedCards = sync.OnceValues(func() (*cards.Catalog, error) { return cards.Parse(fixtures.Cards) })

// decodeRecord is the kernel value of the record raw at key k (of kind
// kind, recordKind), of tenant tid.
func decodeRecord(kind, k, raw, tid string) (any, error) {
	var rec any
	switch kind {
	case "tenant":
		rec = new(simulator.Tenant)
	case "xten":
		rec = new(simulator.ExpiredTenant)
	case "cs":
		rec = new(simulator.ClientSession)
	case "att":
		rec = new(simulator.Attempt)
	case "job":
		rec = new(simulator.Job)
	case "dsp":
		rec = new(simulator.Dispute)
	case "pi":
		var r instRec
		if err := decode(raw, &r); err != nil {
			return nil, err
		}
		return r.instrument(tid)
	case "pay":
		var r payRec
		if err := decode(raw, &r); err != nil {
			return nil, err
		}
		return r.payment(tid)
	case "evt":
		return decodeEvent(raw, tid)
	case "obs": // the observer's own type, unknown here: its members as a tree
		var v any
		if err := decode(raw, &v); err != nil {
			return nil, err
		}
		return v, nil
	default:
		return nil, errUnknown
	}
	if err := decode(raw, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// payRec is a payment as stored. Its own fields shadow the embedded
// payment's fields of the same name (their tags).
type payRec struct {
	simulator.Payment
	TenantID      string              `json:"tenantId,omitempty"`
	Card          *simulator.CardInfo `json:"card,omitempty"`
	Ref           *simulator.CardRef  `json:"cr,omitempty"`
	PaymentMethod pmRec               `json:"paymentMethod"`
	Plan          *planRec            `json:"plan,omitempty"`
	PL            *planShort          `json:"pl,omitempty"`
	Processor     *procRec            `json:"processor,omitempty"`
	FinalCaptured bool                `json:"finalCaptured,omitempty"`
	Transactions  []txnRec            `json:"transactions"`
	Authorized    *int64              `json:"authorized,omitempty"`
	RiskData      *simulator.RiskData `json:"riskData,omitempty"`
	Risk          bool                `json:"rk,omitempty"`
}

type pmRec struct {
	simulator.PaymentMethod
	IsVaulted bool                `json:"isVaulted,omitempty"`
	Data      *simulator.CardData `json:"paymentMethodData,omitempty"`
	D         *cardDataRec        `json:"d,omitempty"`
}

type cardDataRec struct {
	Month     string `json:"m"`
	Year      string `json:"y"`
	Holder    string `json:"h,omitempty"`
	Tokenized bool   `json:"t,omitempty"`
	First6    bool   `json:"6,omitempty"`
}

// txnRec: nil members are the payment's.
type txnRec struct {
	simulator.Transaction
	CurrencyCode        *string `json:"currencyCode,omitempty"`
	ProcessorName       *string `json:"processorName,omitempty"`
	ProcessorMerchantID *string `json:"processorMerchantId,omitempty"`
	CardTokenType       *string `json:"cardTokenType,omitempty"`
}

type procRec struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured,omitempty"`
	AmountRefunded      int64  `json:"amountRefunded,omitempty"`
}

// planRec is the plan under the decision types' Go field names, the
// authorizing account as the index (from 1) of the step that names it.
type planRec struct {
	simulator.Plan
	Account     *simulator.ProcessorAccount `json:"account,omitempty"`
	AccountStep int                         `json:"as,omitempty"`
}

// planShort is the plan under short names.
type planShort struct {
	Rule        string        `json:"r,omitempty"`
	Why         string        `json:"w,omitempty"`
	Steps       []stepShort   `json:"s,omitempty"`
	Capture     *captureShort `json:"c,omitempty"`
	Refund      *refundShort  `json:"f,omitempty"`
	Dispute     *disputeShort `json:"d,omitempty"`
	Account     *accountShort `json:"a,omitempty"`
	AccountStep int           `json:"as,omitempty"`
}

type accountShort struct {
	Name              string        `json:"n,omitempty"`
	MerchantID        string        `json:"m,omitempty"`
	AsyncCapture      bool          `json:"y,omitempty"`
	SettleAfter       time.Duration `json:"sa,omitempty"`
	AuthorizationCode bool          `json:"ac,omitempty"`
}

type stepShort struct {
	Account accountShort            `json:"a"`
	Status  simulator.PaymentStatus `json:"s,omitempty"`
	Reason  *simulator.StatusReason `json:"r,omitempty"`
}

type captureShort struct {
	Status      simulator.PaymentStatus `json:"s,omitempty"`
	SettleAfter time.Duration           `json:"sa,omitempty"`
	SettleTo    simulator.PaymentStatus `json:"st,omitempty"`
	Reason      *simulator.StatusReason `json:"r,omitempty"`
}

type refundShort struct {
	Status    simulator.PaymentStatus `json:"s,omitempty"`
	After     time.Duration           `json:"af,omitempty"`
	ResolveTo simulator.PaymentStatus `json:"rt,omitempty"`
	Reason    *simulator.StatusReason `json:"r,omitempty"`
}

type disputeShort struct {
	After  time.Duration      `json:"af,omitempty"`
	Reason string             `json:"r,omitempty"`
	Amount int64              `json:"am,omitempty"`
	Then   []disputeStepShort `json:"t,omitempty"`
}

type disputeStepShort struct {
	Status simulator.DisputeStatus `json:"s,omitempty"`
	After  time.Duration           `json:"af,omitempty"`
}

func (a accountShort) account() simulator.ProcessorAccount {
	return simulator.ProcessorAccount{Name: a.Name, ProcessorMerchantID: a.MerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

func (ps *planShort) plan() *simulator.Plan {
	pl := &simulator.Plan{Rule: ps.Rule, Why: ps.Why}
	for _, st := range ps.Steps {
		pl.Steps = append(pl.Steps, simulator.AuthStep{Account: st.Account.account(), Status: st.Status, Reason: st.Reason})
	}
	if c := ps.Capture; c != nil {
		pl.Capture = &simulator.CaptureDecision{Status: c.Status, SettleAfter: c.SettleAfter, SettleTo: c.SettleTo, Reason: c.Reason}
	}
	if r := ps.Refund; r != nil {
		pl.Refund = &simulator.RefundDecision{Status: r.Status, After: r.After, ResolveTo: r.ResolveTo, Reason: r.Reason}
	}
	if d := ps.Dispute; d != nil {
		pl.Dispute = &simulator.DisputeDecision{After: d.After, Reason: d.Reason, Amount: d.Amount}
		for _, st := range d.Then {
			pl.Dispute.Then = append(pl.Dispute.Then, simulator.DisputeStep{Status: st.Status, After: st.After})
		}
	}
	switch i := ps.AccountStep; {
	case i > 0 && i <= len(pl.Steps):
		a := pl.Steps[i-1].Account
		pl.Account = &a
	case ps.Account != nil:
		a := ps.Account.account()
		pl.Account = &a
	}
	return pl
}

func orRef(v *string, ref string) string {
	if v == nil {
		return ref
	}
	return *v
}

// payment is the payment rec stores, of tenant tid.
func (rec *payRec) payment(tid string) (*simulator.Payment, error) {
	p := rec.Payment
	p.TenantID = tid
	p.FinalCaptured = rec.FinalCaptured
	if pr := rec.Processor; pr != nil {
		p.Processor = &simulator.ProcessorState{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	if rec.Transactions != nil {
		var name, mid string
		if p.Processor != nil {
			name, mid = p.Processor.Name, p.Processor.ProcessorMerchantID
		}
		p.Transactions = make([]simulator.Transaction, len(rec.Transactions))
		for i, x := range rec.Transactions {
			t := x.Transaction
			t.CurrencyCode, t.ProcessorName = orRef(x.CurrencyCode, p.CurrencyCode), orRef(x.ProcessorName, name)
			t.ProcessorMerchantID, t.CardTokenType = orRef(x.ProcessorMerchantID, mid), orRef(x.CardTokenType, p.CardTokenType)
			p.Transactions[i] = t
		}
	}
	card, err := cardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("payment %s: %w", p.ID, err)
	}
	p.Card = card
	p.PaymentMethod = rec.PaymentMethod.PaymentMethod
	p.PaymentMethod.IsVaulted = rec.PaymentMethod.IsVaulted
	p.Authorized = p.Amount
	if rec.Authorized != nil {
		p.Authorized = *rec.Authorized
	}
	switch d := rec.PaymentMethod.D; {
	case d != nil:
		p.PaymentMethod.Data = simulator.CardData{Last4Digits: card.Last4, ExpirationMonth: d.Month, ExpirationYear: d.Year,
			CardholderName: d.Holder, Network: card.NetworkDisplay, IsNetworkTokenized: d.Tokenized, BinData: card.BinData}
		if d.First6 {
			p.PaymentMethod.Data.First6Digits = card.First6
		}
	case rec.PaymentMethod.Data != nil:
		p.PaymentMethod.Data = *rec.PaymentMethod.Data
	}
	p.RiskData = rec.RiskData
	if rec.Risk {
		p.RiskData = p.AuthorizationRisk()
	}
	if rec.PL != nil {
		p.Plan = rec.PL.plan()
	} else if rec.Plan != nil {
		pl := rec.Plan.Plan
		pl.Account = rec.Plan.Account
		if i := rec.Plan.AccountStep; i > 0 && i <= len(pl.Steps) {
			a := pl.Steps[i-1].Account
			pl.Account = &a
		}
		p.Plan = &pl
	}
	return &p, nil
}

// instRec is an instrument as stored.
type instRec struct {
	simulator.Instrument
	TenantID string              `json:"tenantId,omitempty"`
	Card     *simulator.CardInfo `json:"card,omitempty"`
	Ref      *simulator.CardRef  `json:"cr,omitempty"`
}

func (rec *instRec) instrument(tid string) (*simulator.Instrument, error) {
	in := rec.Instrument
	in.TenantID = tid
	card, err := cardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("instrument %s: %w", in.Token, err)
	}
	in.Card = card
	return &in, nil
}

func cardOf(whole *simulator.CardInfo, ref *simulator.CardRef) (simulator.CardInfo, error) {
	switch {
	case ref != nil:
		cat, err := shippedCards()
		if err != nil {
			return simulator.CardInfo{}, err
		}
		c, ok := cat.CardFromRef(*ref)
		if !ok {
			return c, fmt.Errorf("card %s is not in the test-card catalogue", ref.Fingerprint)
		}
		return c, nil
	case whole != nil:
		return *whole, nil
	}
	return simulator.CardInfo{}, nil
}

// An event of the CBOR layout: the version byte, the payment id (a uvarint
// length, then the id), then an evStore. An event of the JSON layout: its
// record, then what its body is rendered from, each part after a newline
// and tagged by its first byte ('p' a payment record, 'd' a dispute), or an
// earlier release's rendered body (a JSON object). Older still, the body is
// apart, at evb:<id> (eventBody).
type evStore struct {
	R evRec           `json:"r"`
	P cbor.RawMessage `json:"p,omitempty"`
	D cbor.RawMessage `json:"d,omitempty"`
	B []byte          `json:"b,omitempty"`
	V string          `json:"v,omitempty"`
}

type evRec struct {
	ID            string          `json:"id"`
	TenantID      string          `json:"tenantId,omitempty"`
	Type          string          `json:"eventType"`
	PaymentID     string          `json:"paymentId"`
	DisputeID     string          `json:"disputeId,omitempty"`
	CreatedAt     time.Time       `json:"createdAt"`
	Body          json.RawMessage `json:"body,omitempty"`
	Status        string          `json:"status"`
	NextAt        time.Time       `json:"nextAt,omitzero"`
	Attempts      []attRec        `json:"attempts,omitempty"`
	TraceParent   string          `json:"traceParent,omitempty" cbor:"tp,omitempty"`
	PaymentStatus string          `json:"paymentStatus,omitempty" cbor:"ps,omitempty"`
}

type attRec struct {
	At               time.Time         `json:"at"`
	StatusCode       int               `json:"statusCode,omitempty"`
	LatencyMs        int64             `json:"latencyMs,omitempty"`
	Error            string            `json:"error,omitempty"`
	ResponseBodyHead string            `json:"responseBodyHead,omitempty"`
	SignedAt         string            `json:"signedAt,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	Replay           bool              `json:"replay,omitempty"`
	Chaos            string            `json:"chaos,omitempty"`
}

// decodeEvent is the event of a stored value, with what its body is
// rendered from (its payment and dispute) or its rendered body; an event
// that holds neither has the body "null" (its body may be apart, at evb).
func decodeEvent(v, tid string) (*simulator.Event, error) {
	var st evStore
	var pay *simulator.Payment
	var dsp *simulator.Dispute
	if isJSON(v) {
		rec, rest, _ := strings.Cut(v, "\n")
		if err := json.Unmarshal([]byte(rec), &st.R); err != nil {
			return nil, err
		}
		if rest != "" && rest[0] == '{' {
			st.B = []byte(rest)
		} else {
			for part := range strings.SplitSeq(rest, "\n") {
				if part == "" {
					continue
				}
				switch part[0] {
				case 'p':
					var r payRec
					if err := decode(part[1:], &r); err != nil {
						return nil, err
					}
					p, err := r.payment(tid)
					if err != nil {
						return nil, err
					}
					pay = p
				case 'd':
					dsp = new(simulator.Dispute)
					if err := decode(part[1:], dsp); err != nil {
						return nil, err
					}
				default:
					return nil, fmt.Errorf("unknown part %q", part[:1])
				}
			}
		}
	} else {
		if len(v) < 2 || v[0] != cborV1 {
			return nil, errUnknown
		}
		n, k := binary.Uvarint([]byte(v[1:min(len(v), 11)]))
		if k <= 0 || uint64(len(v)-1-k) < n {
			return nil, errors.New("malformed event value")
		}
		if err := decMode.Unmarshal([]byte(v[1+k+int(n):]), &st); err != nil {
			return nil, err
		}
		if len(st.P) > 0 {
			var r payRec
			if err := decMode.Unmarshal(st.P, &r); err != nil {
				return nil, err
			}
			p, err := r.payment(tid)
			if err != nil {
				return nil, err
			}
			pay = p
		}
		if len(st.D) > 0 {
			dsp = new(simulator.Dispute)
			if err := decMode.Unmarshal(st.D, dsp); err != nil {
				return nil, err
			}
		}
	}
	r := &st.R
	e := &simulator.Event{ID: r.ID, TenantID: tid, Type: r.Type, PaymentID: r.PaymentID, DisputeID: r.DisputeID,
		CreatedAt: r.CreatedAt, Status: r.Status, NextAt: r.NextAt, TraceParent: r.TraceParent,
		PaymentStatus: simulator.PaymentStatus(r.PaymentStatus), Version: simulator.APIVersion(st.V),
		Payment: pay, Dispute: dsp}
	for _, a := range r.Attempts {
		e.Attempts = append(e.Attempts, simulator.DeliveryAttempt(a))
	}
	switch {
	case pay != nil || dsp != nil:
	case len(st.B) > 0:
		e.Body = st.B
	case len(r.Body) > 0 && !bytes.Equal(r.Body, []byte("null")):
		e.Body = r.Body
	default:
		e.Body = json.RawMessage("null")
	}
	return e, nil
}
