package processors

import (
	"context"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

var _ simulator.Processor = (*Fake)(nil)

// Fake is the card-catalogue processor: it authorizes by default and honours
// the vendor's decline, fail, 3DS and dispute test cards. Capture settles at
// once on a sync account and after SettleAfter on an async one; refunds
// succeed.
type Fake struct {
	accounts     []simulator.ProcessorAccount
	DisputeAfter time.Duration
}

// DefaultAccounts are the processors of the shipped configuration: STRIPE
// (default, synchronous capture, authorization codes) and ADYEN (async).
func DefaultAccounts() []simulator.ProcessorAccount {
	return []simulator.ProcessorAccount{
		{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AuthorizationCode: true},
		{Name: "ADYEN", ProcessorMerchantID: "sandbox_adyen", AsyncCapture: true, SettleAfter: 30 * time.Second},
	}
}

// NewFake makes a fake processor over accounts; the first is the default.
func NewFake(accounts []simulator.ProcessorAccount) *Fake {
	if len(accounts) == 0 {
		accounts = DefaultAccounts()
	}
	return &Fake{accounts: accounts, DisputeAfter: 10 * time.Second}
}

// Accounts implements simulator.Processor.
func (f *Fake) Accounts(string) []simulator.ProcessorAccount { return f.accounts }

// Authorize implements simulator.Processor.
func (f *Fake) Authorize(_ context.Context, _ string, p *simulator.Payment) simulator.AuthorizeDecision {
	st := simulator.AuthStep{Account: f.accounts[0], Status: simulator.StatusAuthorized}
	switch p.Card.Outcome {
	case simulator.OutcomeDeclined:
		st.Status, st.Reason = simulator.StatusDeclined, p.Card.StatusReason
	case simulator.OutcomeFailed:
		st.Status, st.Reason = simulator.StatusFailed, p.Card.StatusReason
	}
	d := simulator.AuthorizeDecision{ThreeDS: p.Card.ThreeDS, Steps: []simulator.AuthStep{st}}
	if d.ThreeDS == "" {
		d.ThreeDS = simulator.ThreeDSNone
	}
	if p.Card.Dispute {
		d.Dispute = &simulator.DisputeDecision{After: f.DisputeAfter, Reason: "FRAUDULENT"}
	}
	return d
}

func (f *Fake) account(p *simulator.Payment) simulator.ProcessorAccount {
	if p.Processor != nil {
		for _, a := range f.accounts {
			if a.ProcessorMerchantID == p.Processor.ProcessorMerchantID && a.Name == p.Processor.Name {
				return a
			}
		}
	}
	return f.accounts[0]
}

// Capture implements simulator.Processor.
func (f *Fake) Capture(_ context.Context, _ string, p *simulator.Payment, _ int64) simulator.CaptureDecision {
	if a := f.account(p); a.AsyncCapture {
		return simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: a.SettleAfter, SettleTo: simulator.StatusSettled}
	}
	return simulator.CaptureDecision{Status: simulator.StatusSettled}
}

// Refund implements simulator.Processor.
func (f *Fake) Refund(context.Context, string, *simulator.Payment, int64) simulator.RefundDecision {
	return simulator.RefundDecision{Status: simulator.StatusSettled}
}
