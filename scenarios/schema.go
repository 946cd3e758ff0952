package scenarios

import (
	"path"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Doc is a loaded, valid scenario document: the processors and the rules in order.
type Doc struct {
	Version          int
	DefaultProcessor string
	Processors       []Processor
	Rules            []Rule
}

// Processor is one fake processor account.
type Processor struct {
	Name                string
	ProcessorMerchantID string
	Async               bool // capture: async
	SettleAfter         time.Duration
	AuthorizationCode   bool
}

// Account is the processor as the simulator's port sees it.
func (p Processor) Account() simulator.ProcessorAccount {
	return simulator.ProcessorAccount{
		Name: p.Name, ProcessorMerchantID: p.ProcessorMerchantID,
		AsyncCapture: p.Async, SettleAfter: p.SettleAfter, AuthorizationCode: p.AuthorizationCode,
	}
}

// Rule is one named rule: a condition and the outcomes it gives.
type Rule struct {
	Name string
	Line int
	When When
	// Authorize is the processors' answers in order (nil: the default
	// processor authorizes). A step's Processor is "" for the default one.
	Authorize []Step
	ThreeDS   simulator.ThreeDSProfile // "" when the rule says nothing
	Timeout   *Timeout
	Capture   *simulator.CaptureDecision
	Refund    *simulator.RefundDecision
	Dispute   *simulator.DisputeDecision
	Latency   time.Duration
}

// Step is one processor's answer of an authorize outcome.
type Step struct {
	Processor string
	Status    simulator.PaymentStatus
	Reason    *simulator.StatusReason
}

// Timeout is a gateway timeout: 504 after HoldFor (0: the request timeout),
// then ResolveTo After the payment's creation.
type Timeout struct {
	ResolveTo simulator.PaymentStatus
	After     time.Duration
	HoldFor   time.Duration
}

// When is the condition of a rule; empty fields match anything.
type When struct {
	Cards        []string // numbers, as written
	fingerprints map[string]bool
	BIN          string
	Networks     []string
	Amount       *AmountRange
	CurrencyCode string
	OrderID      string // glob (path.Match syntax)
	CustomerID   string
	Metadata     map[string]string
	// MetadataKeys keeps the file's order of Metadata for messages and rendering.
	MetadataKeys        []string
	ProcessorMerchantID string
	// Expired, when set, matches a card whose expiry month ended before the
	// month of the payment's creation on the tenant's clock (true), or one
	// that had not (false).
	Expired *bool
}

// AmountRange is amount: N (Min == Max) or {min, max} (either may be open).
type AmountRange struct {
	Min, Max *int64
	Exact    bool // written as a single number
}

func (a AmountRange) contains(v int64) bool {
	return (a.Min == nil || v >= *a.Min) && (a.Max == nil || v <= *a.Max)
}

func globMatch(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// Account returns the named processor account and whether it exists.
func (d *Doc) Account(name string) (Processor, bool) {
	for _, p := range d.Processors {
		if p.Name == name {
			return p, true
		}
	}
	return Processor{}, false
}

// Default is the default processor.
func (d *Doc) Default() Processor {
	p, _ := d.Account(d.DefaultProcessor)
	return p
}

// Accounts lists the processors as the port sees them, the default first.
func (d *Doc) Accounts() []simulator.ProcessorAccount {
	out := []simulator.ProcessorAccount{d.Default().Account()}
	for _, p := range d.Processors {
		if p.Name != d.DefaultProcessor {
			out = append(out, p.Account())
		}
	}
	return out
}

// Rule returns the rule named name.
func (d *Doc) Rule(name string) (*Rule, bool) {
	for i := range d.Rules {
		if d.Rules[i].Name == name {
			return &d.Rules[i], true
		}
	}
	return nil, false
}
