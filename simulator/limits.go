package simulator

import (
	"encoding/json"
	"fmt"
)

// Input limits that more than one reader applies: the request schema
// (httpapi) checks every request body with them, and a snapshot import
// (simulator/snapshot) checks each record with them. The table that lists
// every limit lives in httpapi (schema_limits.go).
const (
	// MaxDepth is the deepest JSON nesting accepted; the top-level object is
	// level 1 and each object or array inside adds one.
	MaxDepth = 32
	// MaxText bounds every string field the vendor gives no other limit.
	MaxText = 255
	// MaxPageURL is the vendor's stated length of productData.pageUrl.
	MaxPageURL = 1024
)

// Limits of the records the domain grows after the request schema checked
// the request.
const (
	// MaxMetadataBytes bounds a metadata object (and paymentMethod.options)
	// once encoded as JSON, after merges too.
	MaxMetadataBytes = 16 << 10
	// MaxTransactions bounds the captures and refunds of one payment.
	MaxTransactions = 100
)

// EncodedSize is the length of v encoded as JSON (-1 when it cannot be encoded).
func EncodedSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return -1
	}
	return len(b)
}

// CheckMetadataSize is the 422 of a (merged) metadata object above
// MaxMetadataBytes, at path of model; nil when it fits.
func CheckMetadataSize(model, path string, m map[string]any) error {
	if len(m) == 0 {
		return nil
	}
	if n := EncodedSize(m); n < 0 || n > MaxMetadataBytes {
		return ValidationError(model, FieldError{Path: path, Description: fmt.Sprintf(
			"Ensure this object is at most %d bytes once encoded as JSON (merged, it would be %d)", MaxMetadataBytes, n)})
	}
	return nil
}

// TransactionCount is how many captures and refunds the payment holds.
func (p *Payment) TransactionCount() int {
	n := 0
	for _, t := range p.Transactions {
		if t.Type == TxnRefund {
			n++
			continue
		}
		for _, e := range t.Events {
			if e.Type == EventCaptureSucceeded {
				n++
			}
		}
	}
	return n
}

// checkTransactionRoom is the 422 of a capture or refund past MaxTransactions.
func (p *Payment) checkTransactionRoom(model string) error {
	if n := p.TransactionCount(); n >= MaxTransactions {
		return ValidationError(model, FieldError{Path: "$", Description: fmt.Sprintf(
			"A payment holds at most %d transactions (captures and refunds); this one has %d", MaxTransactions, n)})
	}
	return nil
}
