package simulator

// ThreeDSProfile is how a payment goes through 3D Secure (a scenario's
// threeDS): NONE, CHALLENGE, FRICTIONLESS_PASS or FRICTIONLESS_FAIL.
type ThreeDSProfile string

// The 3DS profiles.
const (
	ThreeDSNone             ThreeDSProfile = "NONE"
	ThreeDSChallenge        ThreeDSProfile = "CHALLENGE"
	ThreeDSFrictionlessPass ThreeDSProfile = "FRICTIONLESS_PASS"
	ThreeDSFrictionlessFail ThreeDSProfile = "FRICTIONLESS_FAIL"
)

// 3DS results the shopper (or the control plane) reports.
const (
	ThreeDSAuthSuccess = "AUTH_SUCCESS"
	ThreeDSAuthFailed  = "AUTH_FAILED"
)

// FinalStep is the step that decides the payment: the first that is not a
// soft decline, else the last.
func FinalStep(d AuthorizeDecision) AuthStep {
	for i, st := range d.Steps {
		soft := st.Status == StatusDeclined && st.Reason != nil && st.Reason.DeclineType == "SOFT_DECLINE"
		if !soft || i == len(d.Steps)-1 {
			return st
		}
	}
	return AuthStep{Status: StatusAuthorized}
}

// DefaultReason is the statusReason of a payment of status st whose decision
// carries none (nil for other statuses).
func DefaultReason(st PaymentStatus) *StatusReason {
	switch st {
	case StatusDeclined:
		return &StatusReason{Type: "ISSUER_DECLINED", DeclineType: "HARD_DECLINE", Code: "DECLINED", Message: "The issuer declined the payment"}
	case StatusFailed:
		return &StatusReason{Type: "APPLICATION_ERROR", Code: "ERROR", Message: "The processor failed to process the payment"}
	}
	return nil
}

// AuthFailed3DS is the statusReason of a payment whose 3DS authentication failed.
func AuthFailed3DS() *StatusReason {
	return &StatusReason{Type: "ISSUER_DECLINED", DeclineType: "HARD_DECLINE", Code: "AUTHENTICATION_REQUIRED", Message: "3DS authentication failed"}
}
