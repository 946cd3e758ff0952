package simulator

import "net/url"

// ChallengePagePath is where the dashboard serves the sandbox's 3DS challenge
// page; the API's requiredAction.challengeUrl points there (SANDBOX.md 11).
const ChallengePagePath = "/_sandbox/ui/checkout/challenge"

// ChallengePageURL is the challenge page of challengeToken under base (the
// server's scheme and host, e.g. "http://localhost:8080").
func ChallengePageURL(base, challengeToken string) string {
	return base + ChallengePagePath + "?token=" + url.QueryEscape(challengeToken)
}
