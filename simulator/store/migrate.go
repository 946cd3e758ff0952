package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tidwall/buntdb"

	"github.com/paysandbox/paysandbox/simulator"
)

// The one-time migration of JSON records (every build before the binary
// format) to the binary format (codec.go). It runs in Open, before the
// store serves anything, in batches of one transaction each: a record is
// either old (its value starts with '{') or new, so a migration cut by
// kill -9 finds the records it had not reached at the next start. When a
// whole pass found nothing old, kFormat is written and later starts skip
// the scan. This file is the only reader of JSON records.

// kFormat holds the record format of the whole file once it is migrated.
const (
	kFormat     = "format"
	formatValue = "cbor1"
)

// Migration batch bounds: records converted, and keys looked at, per
// transaction (each holds buntdb's write lock while it runs).
var (
	migrateBatch = 1000
	migrateScan  = 20000
	// migrateCut, when set, is called after each committed batch; an error
	// stops the migration there (tests of a cut migration).
	migrateCut func(batches int) error
)

// migrate converts every JSON record of db and marks the file migrated; it
// answers how many records it converted.
func migrate(db *buntdb.DB, path string) (int, error) {
	done := false
	if err := db.View(func(tx *buntdb.Tx) error {
		v, err := tx.Get(kFormat)
		done = err == nil && v == formatValue
		if errors.Is(err, buntdb.ErrNotFound) {
			return nil
		}
		return err
	}); err != nil || done {
		return 0, err
	}
	if err := keepOriginal(db, path); err != nil {
		return 0, err
	}
	from, total, batches := "", 0, 0
	for {
		var next string
		n := 0
		err := db.Update(func(tx *buntdb.Tx) (err error) {
			n, next, err = migrateBatchFrom(tx, from, path)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		batches++
		if next == "" {
			break
		}
		from = next
		if migrateCut != nil {
			if err := migrateCut(batches); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// migrateBatchFrom converts, in tx, the JSON records after key from (from
// itself included when it is ""), at most migrateBatch of them within
// migrateScan keys; it answers how many it converted and the key to go on
// after ("" once the file is done, which it then marks converted).
func migrateBatchFrom(tx *buntdb.Tx, from, path string) (n int, next string, err error) {
	type kv struct{ k, v string }
	var old []kv
	scanned := 0
	err = tx.AscendGreaterOrEqual("", from, func(k, v string) bool {
		if k == from && from != "" {
			return true
		}
		scanned++
		if len(v) > 0 && v[0] == '{' && recordKind(k) != "" {
			old = append(old, kv{k, v})
		}
		if len(old) >= migrateBatch || scanned >= migrateScan {
			next = k
			return false
		}
		return true
	})
	if err != nil {
		return 0, "", err
	}
	for _, r := range old {
		pairs, err := convertJSON(r.k, r.v)
		if err != nil {
			return 0, "", fmt.Errorf("store: migrating %s in %s: %w", r.k, path, err)
		}
		for _, p := range pairs {
			if _, _, err := tx.Set(p[0], p[1], nil); err != nil {
				return 0, "", err
			}
		}
	}
	if next == "" {
		_, _, err = tx.Set(kFormat, formatValue, nil)
	}
	return len(old), next, err
}

// recordKind names the kind of record a key holds ("" for keys whose values
// are not records: references, index entries, counters, raw bodies).
func recordKind(k string) string {
	switch {
	case strings.HasPrefix(k, pTenant):
		return "tenant"
	case strings.HasPrefix(k, pXTen):
		return "xten"
	case !strings.HasPrefix(k, "t:"):
		return ""
	}
	rest := k[2:]
	i := strings.IndexByte(rest, ':')
	if i < 0 {
		return ""
	}
	kind, _, ok := strings.Cut(rest[i+1:], ":")
	if !ok {
		return ""
	}
	switch kind {
	case "cs", "pi", "pay", "att", "evt", "job", "dsp":
		return kind
	}
	return ""
}

// decodeJSON reads a JSON record; free-form values (metadata) keep their
// exact numbers.
func decodeJSON(raw string, v any) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// convertJSON returns the binary form of the JSON record v at k, with any
// index entry the binary format keeps beside it (a payment's payx value).
func convertJSON(k, v string) ([][2]string, error) {
	var rec any
	switch recordKind(k) {
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
		var r jsonInst
		if err := decodeJSON(v, &r); err != nil {
			return nil, err
		}
		in, err := r.instrument(keyTenant(k))
		if err != nil {
			return nil, err
		}
		return encodeRecord(k, in)
	case "pay":
		p, err := paymentFromJSON(v, keyTenant(k))
		if err != nil {
			return nil, err
		}
		return encodeRecord(k, p)
	case "evt":
		e, err := eventFromJSON(v, keyTenant(k))
		if err != nil {
			return nil, err
		}
		return encodeRecord(k, e)
	default:
		return nil, errors.New("not a record")
	}
	if err := decodeJSON(v, rec); err != nil {
		return nil, err
	}
	return encodeRecord(k, rec)
}

func paymentFromJSON(v, tid string) (*simulator.Payment, error) {
	var r jsonPay
	if err := decodeJSON(v, &r); err != nil {
		return nil, err
	}
	return r.payment(tid)
}

// eventFromJSON reads an event of the JSON format: its record, then what
// its webhook body is rendered from, each part after a newline and tagged
// by its first byte ('p' a payment record, 'd' a dispute), or an earlier
// release's rendered body (a JSON object).
func eventFromJSON(v, tid string) (*simulator.Event, error) {
	rec, rest, _ := strings.Cut(v, "\n")
	var e simulator.Event
	if err := json.Unmarshal([]byte(rec), &e); err != nil {
		return nil, err
	}
	e.TenantID, e.Body = tid, nil
	if rest != "" && rest[0] == '{' {
		e.Body = []byte(rest)
		return &e, nil
	}
	for part := range strings.SplitSeq(rest, "\n") {
		if part == "" {
			continue
		}
		switch part[0] {
		case 'p':
			p, err := paymentFromJSON(part[1:], tid)
			if err != nil {
				return nil, err
			}
			e.Payment = p
		case 'd':
			var d simulator.Dispute
			if err := decodeJSON(part[1:], &d); err != nil {
				return nil, err
			}
			d.TenantID = tid
			e.Dispute = &d
		default:
			return nil, fmt.Errorf("unknown part %q", part[:1])
		}
	}
	return &e, nil
}

// BackupSuffix names the copy of a data file that Open keeps before it
// converts the file's JSON records: PATH+BackupSuffix holds the file as it
// was before the conversion, until the user removes it.
const BackupSuffix = ".before-cbor"

// keepOriginal copies the data file at path to path+BackupSuffix before the
// migration writes to it, when the file holds a JSON record and no copy
// exists yet (a migration cut short and resumed keeps the first copy, the
// one taken before anything was converted).
func keepOriginal(db *buntdb.DB, path string) error {
	if path == ":memory:" {
		return nil
	}
	old := false
	if err := db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			old = len(v) > 0 && v[0] == '{' && recordKind(k) != ""
			return !old
		})
	}); err != nil || !old {
		return err
	}
	backup := path + BackupSuffix
	if _, err := os.Stat(backup); err == nil {
		return nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	tmp := backup + ".tmp"
	if err := os.WriteFile(tmp, src, 0o600); err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	if f, err := os.Open(tmp); err == nil {
		_ = f.Sync()
		f.Close()
	}
	if err := os.Rename(tmp, backup); err != nil {
		return fmt.Errorf("store: keeping a copy of %s before converting it: %w", path, err)
	}
	return nil
}

// The JSON records of the earliest layout, as this migration reads them:
// the kernel's types under their JSON names, with the members the compact
// JSON records shadowed (a card by reference, a short plan, transactions
// leaving out what the payment repeats).
// jsonPay is a payment as stored. Its own fields shadow the embedded
// payment's fields of the same name (their tags).
type jsonPay struct {
	simulator.Payment
	TenantID      string              `json:"tenantId,omitempty"` // records before the compact format
	Card          *simulator.CardInfo `json:"card,omitempty"`     // a card the catalogue cannot rebuild, or an older record
	Ref           *simulator.CardRef  `json:"cr,omitempty"`
	PaymentMethod jsonPM              `json:"paymentMethod"`
	Plan          *jsonPlan           `json:"plan,omitempty"` // records before the short names (read only)
	PL            *jsonPlanShort      `json:"pl,omitempty"`
	Processor     *jsonProc           `json:"processor,omitempty"`
	FinalCaptured bool                `json:"finalCaptured,omitempty"`
	Transactions  []jsonTxn           `json:"transactions"`
	Authorized    *int64              `json:"authorized,omitempty"` // nil: the amount (every earlier record has it)
	RiskData      *simulator.RiskData `json:"riskData,omitempty"`   // when not payment.AuthorizationRisk()
	Risk          bool                `json:"rk,omitempty"`         // riskData is payment.AuthorizationRisk()
}

type jsonPM struct {
	simulator.PaymentMethod
	IsVaulted bool                `json:"isVaulted,omitempty"`
	Data      *simulator.CardData `json:"paymentMethodData,omitempty"` // whole (older records, or not derivable)
	D         *jsonCardData       `json:"d,omitempty"`
}

// jsonCardData is paymentMethodData less what the payment's card says.
type jsonCardData struct {
	Month     string `json:"m"`
	Year      string `json:"y"`
	Holder    string `json:"h,omitempty"`
	Tokenized bool   `json:"t,omitempty"`
	First6    bool   `json:"6,omitempty"` // first6Digits shown
}

// jsonTxn is a transaction as stored: its currency, processor name and
// merchant id and card token type are left out when they are the payment's
// (nil: the payment's; a transaction that differs, even by being empty,
// keeps its own, as records before this format kept every one).
type jsonTxn struct {
	simulator.Transaction
	CurrencyCode        *string `json:"currencyCode,omitempty"`
	ProcessorName       *string `json:"processorName,omitempty"`
	ProcessorMerchantID *string `json:"processorMerchantId,omitempty"`
	CardTokenType       *string `json:"cardTokenType,omitempty"`
}

// jsonProc is the processor state without its zero amounts.
type jsonProc struct {
	Name                string `json:"name"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	AmountCaptured      int64  `json:"amountCaptured,omitempty"`
	AmountRefunded      int64  `json:"amountRefunded,omitempty"`
}

// jsonPlan is the plan as builds before the short names stored it (the
// decision types under their Go field names, which have no JSON tags), with
// the authorizing account as the index (from 1) of the step that names it.
// Only the migration (migrate.go) reads it: jsonPlanShort is written.
type jsonPlan struct {
	simulator.Plan
	Account     *simulator.ProcessorAccount `json:"account,omitempty"`
	AccountStep int                         `json:"as,omitempty"`
}

// jsonPlanShort is the plan as stored: short names and no zero values. The
// authorizing account is the index (from 1) of the step that names it, when
// one does. Empty lists decode as nil (the plan never tells nil from empty).
type jsonPlanShort struct {
	Rule        string       `json:"r,omitempty"`
	Why         string       `json:"w,omitempty"`
	Steps       []jsonStep   `json:"s,omitempty"`
	Capture     *jsonCapture `json:"c,omitempty"`
	Refund      *jsonRefund  `json:"f,omitempty"`
	Dispute     *jsonDispute `json:"d,omitempty"`
	Account     *jsonAccount `json:"a,omitempty"`
	AccountStep int          `json:"as,omitempty"`
}

type jsonAccount struct {
	Name              string        `json:"n,omitempty"`
	MerchantID        string        `json:"m,omitempty"`
	AsyncCapture      bool          `json:"y,omitempty"`
	SettleAfter       time.Duration `json:"sa,omitempty"`
	AuthorizationCode bool          `json:"ac,omitempty"`
}

type jsonStep struct {
	Account jsonAccount             `json:"a"`
	Status  simulator.PaymentStatus `json:"s,omitempty"`
	Reason  *simulator.StatusReason `json:"r,omitempty"`
}

type jsonCapture struct {
	Status      simulator.PaymentStatus `json:"s,omitempty"`
	SettleAfter time.Duration           `json:"sa,omitempty"`
	SettleTo    simulator.PaymentStatus `json:"st,omitempty"`
	Reason      *simulator.StatusReason `json:"r,omitempty"`
}

type jsonRefund struct {
	Status    simulator.PaymentStatus `json:"s,omitempty"`
	After     time.Duration           `json:"af,omitempty"`
	ResolveTo simulator.PaymentStatus `json:"rt,omitempty"`
	Reason    *simulator.StatusReason `json:"r,omitempty"`
}

type jsonDispute struct {
	After  time.Duration     `json:"af,omitempty"`
	Reason string            `json:"r,omitempty"`
	Amount int64             `json:"am,omitempty"`
	Then   []jsonDisputeStep `json:"t,omitempty"`
}

type jsonDisputeStep struct {
	Status simulator.DisputeStatus `json:"s,omitempty"`
	After  time.Duration           `json:"af,omitempty"`
}

func (a jsonAccount) account() simulator.ProcessorAccount {
	return simulator.ProcessorAccount{Name: a.Name, ProcessorMerchantID: a.MerchantID, AsyncCapture: a.AsyncCapture,
		SettleAfter: a.SettleAfter, AuthorizationCode: a.AuthorizationCode}
}

func (ps *jsonPlanShort) plan() *simulator.Plan {
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

// payment is the payment rec stores, of tenant tid.
func (rec *jsonPay) payment(tid string) (*simulator.Payment, error) {
	p := rec.Payment
	p.TenantID = tid
	p.FinalCaptured = rec.FinalCaptured
	if pr := rec.Processor; pr != nil {
		p.Processor = &simulator.ProcessorState{Name: pr.Name, ProcessorMerchantID: pr.ProcessorMerchantID, AmountCaptured: pr.AmountCaptured, AmountRefunded: pr.AmountRefunded}
	}
	if rec.Transactions != nil {
		cur, name, mid, tt := txnRefs(&p)
		p.Transactions = make([]simulator.Transaction, len(rec.Transactions))
		for i, x := range rec.Transactions {
			t := x.Transaction
			t.CurrencyCode, t.ProcessorName = orRef(x.CurrencyCode, cur), orRef(x.ProcessorName, name)
			t.ProcessorMerchantID, t.CardTokenType = orRef(x.ProcessorMerchantID, mid), orRef(x.CardTokenType, tt)
			p.Transactions[i] = t
		}
	}
	card, err := jsonCardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("store: payment %s: %w", p.ID, err)
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

// jsonInst is an instrument as stored.
type jsonInst struct {
	simulator.Instrument
	TenantID string              `json:"tenantId,omitempty"` // records before the compact format
	Card     *simulator.CardInfo `json:"card,omitempty"`
	Ref      *simulator.CardRef  `json:"cr,omitempty"`
}

// instrument is the instrument rec stores, of tenant tid.
func (rec *jsonInst) instrument(tid string) (*simulator.Instrument, error) {
	in := rec.Instrument
	in.TenantID = tid
	card, err := jsonCardOf(rec.Card, rec.Ref)
	if err != nil {
		return nil, fmt.Errorf("store: instrument %s: %w", in.Token, err)
	}
	in.Card = card
	return &in, nil
}

func jsonCardOf(whole *simulator.CardInfo, ref *simulator.CardRef) (simulator.CardInfo, error) {
	switch {
	case ref != nil:
		c, ok := shippedCards().CardFromRef(*ref)
		if !ok {
			return c, fmt.Errorf("card %s is not in the test-card catalogue", ref.Fingerprint)
		}
		return c, nil
	case whole != nil:
		return *whole, nil
	}
	return simulator.CardInfo{}, nil
}
