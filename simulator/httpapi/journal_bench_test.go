package httpapi

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// BenchmarkJournalText is the journal's per-body work (mask by value, then
// cut to 4 KiB) on a payment answer without a long digit run (the common
// case: one scan, no copy beyond the string), the same answer with a card
// number in its metadata (the rewrite), and 4 KiB bodies. "owned" is
// journalHead on a buffer the record may keep (the captured response);
// "copy" is the string copy alone.
func BenchmarkJournalText(b *testing.B) {
	raw, err := os.ReadFile("testdata/payment_settled.json")
	if err != nil {
		b.Skip(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		b.Fatal(err)
	}
	seqIDs := compact.Bytes() // the goldens' ids (idgen.Seq) are uuids of 12+ digits in a row
	payment := uuidLike.ReplaceAll(seqIDs, []byte("3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c"))
	withCard := append([]byte(`{"metadata":{"ref":"4111 1111 1111 1111"},`), payment[1:]...)
	big := []byte(`{"metadata":{"note":"` + strings.Repeat("lorem ipsum 2026-11-22 ", 200) + `"}}`)
	bigCVV := []byte(`{"cvv":"123","metadata":{"note":"` + strings.Repeat("lorem ipsum 2026-11-22 ", 200) + `"}}`)
	cases := []struct {
		name string
		body []byte
	}{
		{"payment/no-digit-run", payment},
		{"payment/uuid-digit-runs", seqIDs},
		{"payment/card-number", withCard},
		{"4KiB/no-digit-run", big},
		{"4KiB/cvv", bigCVV},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(min(len(tc.body), journalBodyMax)))
			b.ReportAllocs()
			for b.Loop() {
				_ = journalText(tc.body, false)
			}
		})
		b.Run(tc.name+"/owned", func(b *testing.B) { // what capture does with the response head it owns
			b.SetBytes(int64(min(len(tc.body), journalBodyMax)))
			b.ReportAllocs()
			for b.Loop() {
				_ = journalHead(tc.body, false, true)
			}
		})
		b.Run(tc.name+"/copy", func(b *testing.B) {
			b.SetBytes(int64(min(len(tc.body), journalBodyMax)))
			b.ReportAllocs()
			for b.Loop() {
				_ = string(tc.body[:min(len(tc.body), journalBodyMax)])
			}
		})
	}
}

var uuidLike = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
