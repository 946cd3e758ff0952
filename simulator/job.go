package simulator

import "time"

// JobKind names a kind of scheduled work.
type JobKind string

// The kinds of scheduled work.
const (
	JobAuthorize      JobKind = "authorize"       // (background) authorization of a PENDING payment
	JobExpireAttempt  JobKind = "expire-attempt"  // an attempt's TTL
	JobResolveTimeout JobKind = "resolve-timeout" // a gateway timeout resolves
	JobSettle         JobKind = "settle"          // SETTLING -> SETTLED/FAILED
	JobResolveRefund  JobKind = "resolve-refund"  // a PENDING refund resolves
	JobDispute        JobKind = "dispute"         // a scenario's dispute opens
	JobExpireTenant   JobKind = "expire-tenant"   // never scheduled: a tenant's ttl runs on the wall clock (service.Service.ExpireTenants); ConvertTenantExpiries removes stored ones
	JobDisputeStatus  JobKind = "dispute-status"  // a scripted dispute step (scenario dispute.then)
)

// Job is scheduled work, stored in the same transaction as the change that
// schedules it, so a restart or kill -9 resumes it. Due is on the tenant's
// clock; RealDue is the base-clock instant it maps to with the tenant's
// current offset (rewritten when the tenant's clock moves).
type Job struct {
	ID            string    `json:"id"`
	TenantID      string    `json:"tenantId"`
	Kind          JobKind   `json:"kind"`
	Due           time.Time `json:"due"`
	RealDue       time.Time `json:"realDue"`
	PaymentID     string    `json:"paymentId,omitempty"`
	AttemptID     string    `json:"attemptId,omitempty"`
	TransactionID string    `json:"transactionId,omitempty"`
	Status        string    `json:"status,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	DisputeID     string    `json:"disputeId,omitempty"`
	// Dispute is the scenario's dispute (amount, scripted steps) of a JobDispute.
	Dispute *DisputeDecision `json:"disputePlan,omitempty"`
}
