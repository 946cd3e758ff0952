package scenarios

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/paysandbox/paysandbox/simulator"
)

// The wire form of a document (GET /_sandbox/scenarios): the schema's own
// keys, defaults filled in, so that what is rendered loads back unchanged.
type wireDoc struct {
	Version          int             `yaml:"version" json:"version"`
	DefaultProcessor string          `yaml:"defaultProcessor" json:"defaultProcessor"`
	Processors       []wireProcessor `yaml:"processors" json:"processors"`
	Rules            []wireRule      `yaml:"rules" json:"rules"`
}

type wireProcessor struct {
	Name                string `yaml:"name" json:"name"`
	ProcessorMerchantID string `yaml:"processorMerchantId" json:"processorMerchantId"`
	Capture             string `yaml:"capture" json:"capture"`
	SettleAfter         string `yaml:"settleAfter" json:"settleAfter"`
	AuthorizationCode   bool   `yaml:"authorizationCode" json:"authorizationCode"`
}

type wireRule struct {
	Name      string       `yaml:"name" json:"name"`
	When      *wireWhen    `yaml:"when,omitempty" json:"when,omitempty"`
	Authorize []wireStep   `yaml:"authorize,omitempty" json:"authorize,omitempty"`
	ThreeDS   string       `yaml:"threeDS,omitempty" json:"threeDS,omitempty"`
	Timeout   *wireTimeout `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	Capture   *wireCapture `yaml:"capture,omitempty" json:"capture,omitempty"`
	Refund    *wireRefund  `yaml:"refund,omitempty" json:"refund,omitempty"`
	Dispute   *wireDispute `yaml:"dispute,omitempty" json:"dispute,omitempty"`
	Latency   string       `yaml:"latency,omitempty" json:"latency,omitempty"`
}

type wireWhen struct {
	Card                []string          `yaml:"card,omitempty" json:"card,omitempty"`
	BIN                 string            `yaml:"bin,omitempty" json:"bin,omitempty"`
	Network             []string          `yaml:"network,omitempty" json:"network,omitempty"`
	Expired             *bool             `yaml:"expired,omitempty" json:"expired,omitempty"`
	Amount              *wireAmount       `yaml:"amount,omitempty" json:"amount,omitempty"`
	CurrencyCode        string            `yaml:"currencyCode,omitempty" json:"currencyCode,omitempty"`
	OrderID             string            `yaml:"orderId,omitempty" json:"orderId,omitempty"`
	CustomerID          string            `yaml:"customerId,omitempty" json:"customerId,omitempty"`
	Metadata            map[string]string `yaml:"metadata,omitempty" json:"metadata,omitempty"`
	ProcessorMerchantID string            `yaml:"processorMerchantId,omitempty" json:"processorMerchantId,omitempty"`
}

type wireAmount struct {
	Min *int64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max *int64 `yaml:"max,omitempty" json:"max,omitempty"`
}

type wireStep struct {
	Processor string      `yaml:"processor,omitempty" json:"processor,omitempty"`
	Status    string      `yaml:"status" json:"status"`
	Reason    *wireReason `yaml:"reason,omitempty" json:"reason,omitempty"`
}

type wireReason struct {
	Type        string `yaml:"type" json:"type"`
	DeclineType string `yaml:"declineType,omitempty" json:"declineType,omitempty"`
	Code        string `yaml:"code,omitempty" json:"code,omitempty"`
	Message     string `yaml:"message,omitempty" json:"message,omitempty"`
}

func reasonOf(r *simulator.StatusReason) *wireReason {
	if r == nil {
		return nil
	}
	return &wireReason{Type: r.Type, DeclineType: r.DeclineType, Code: r.Code, Message: r.Message}
}

type wireTimeout struct {
	ResolveTo string `yaml:"resolveTo" json:"resolveTo"`
	After     string `yaml:"after" json:"after"`
	HoldFor   string `yaml:"holdFor,omitempty" json:"holdFor,omitempty"`
}

type wireCapture struct {
	Status      string      `yaml:"status" json:"status"`
	SettleAfter string      `yaml:"settleAfter,omitempty" json:"settleAfter,omitempty"`
	SettleTo    string      `yaml:"settleTo,omitempty" json:"settleTo,omitempty"`
	Reason      *wireReason `yaml:"reason,omitempty" json:"reason,omitempty"`
}

type wireRefund struct {
	Status    string      `yaml:"status" json:"status"`
	After     string      `yaml:"after,omitempty" json:"after,omitempty"`
	ResolveTo string      `yaml:"resolveTo,omitempty" json:"resolveTo,omitempty"`
	Reason    *wireReason `yaml:"reason,omitempty" json:"reason,omitempty"`
}

type wireDispute struct {
	After  string     `yaml:"after" json:"after"`
	Reason string     `yaml:"reason" json:"reason"`
	Amount int64      `yaml:"amount,omitempty" json:"amount,omitempty"`
	Then   []wireThen `yaml:"then,omitempty" json:"then,omitempty"`
}

type wireThen struct {
	Status string `yaml:"status" json:"status"`
	After  string `yaml:"after" json:"after"`
}

// FormatDuration writes d the way the files do: 2h, 30m, 10s, 1500ms, 0s.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return d.String()
}

func optDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return FormatDuration(d)
}

var threeDSNames = map[simulator.ThreeDSProfile]string{
	simulator.ThreeDSChallenge: "challenge", simulator.ThreeDSFrictionlessPass: "frictionless-pass",
	simulator.ThreeDSFrictionlessFail: "frictionless-fail", simulator.ThreeDSNone: "none",
}

func (d *Doc) wire() wireDoc {
	out := wireDoc{Version: 1, DefaultProcessor: d.DefaultProcessor, Processors: []wireProcessor{}, Rules: []wireRule{}}
	for _, p := range d.Processors {
		mode := "sync"
		if p.Async {
			mode = "async"
		}
		out.Processors = append(out.Processors, wireProcessor{Name: p.Name, ProcessorMerchantID: p.ProcessorMerchantID,
			Capture: mode, SettleAfter: FormatDuration(p.SettleAfter), AuthorizationCode: p.AuthorizationCode})
	}
	for _, r := range d.Rules {
		out.Rules = append(out.Rules, r.wire())
	}
	return out
}

func (r *Rule) wire() wireRule {
	w := wireRule{Name: r.Name, ThreeDS: threeDSNames[r.ThreeDS], Latency: optDuration(r.Latency)}
	wh := r.When
	ww := &wireWhen{Card: wh.Cards, BIN: wh.BIN, Network: wh.Networks, Expired: wh.Expired, CurrencyCode: wh.CurrencyCode,
		OrderID: wh.OrderID, CustomerID: wh.CustomerID, Metadata: wh.Metadata, ProcessorMerchantID: wh.ProcessorMerchantID}
	if wh.Amount != nil {
		ww.Amount = &wireAmount{Min: wh.Amount.Min, Max: wh.Amount.Max}
	}
	if len(ww.Metadata) == 0 {
		ww.Metadata = nil
	}
	if ww.Card != nil || ww.BIN != "" || ww.Network != nil || ww.Expired != nil || ww.Amount != nil || ww.CurrencyCode != "" ||
		ww.OrderID != "" || ww.CustomerID != "" || ww.Metadata != nil || ww.ProcessorMerchantID != "" {
		w.When = ww
	}
	for _, st := range r.Authorize {
		w.Authorize = append(w.Authorize, wireStep{Processor: st.Processor, Status: string(st.Status), Reason: reasonOf(st.Reason)})
	}
	if t := r.Timeout; t != nil {
		w.Timeout = &wireTimeout{ResolveTo: string(t.ResolveTo), After: FormatDuration(t.After), HoldFor: optDuration(t.HoldFor)}
	}
	if c := r.Capture; c != nil {
		w.Capture = &wireCapture{Status: string(c.Status), Reason: reasonOf(c.Reason)}
		if c.Status == simulator.StatusSettling {
			w.Capture.SettleAfter, w.Capture.SettleTo = FormatDuration(c.SettleAfter), string(c.SettleTo)
		}
	}
	if f := r.Refund; f != nil {
		w.Refund = &wireRefund{Status: string(f.Status), Reason: reasonOf(f.Reason)}
		if f.Status == simulator.StatusPending {
			w.Refund.After, w.Refund.ResolveTo = FormatDuration(f.After), string(f.ResolveTo)
		}
	}
	if d := r.Dispute; d != nil {
		w.Dispute = &wireDispute{After: FormatDuration(d.After), Reason: d.Reason, Amount: d.Amount}
		for _, st := range d.Then {
			w.Dispute.Then = append(w.Dispute.Then, wireThen{Status: string(st.Status), After: FormatDuration(st.After)})
		}
	}
	return w
}

// YAML renders the document in the schema (it loads back to the same rules).
func (d *Doc) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.wire()); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// JSON renders the document as JSON with the schema's keys.
func (d *Doc) JSON() ([]byte, error) { return json.Marshal(d.wire()) }
