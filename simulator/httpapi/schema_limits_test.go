package httpapi

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// limitsMarkdown is the limits table as docs/limits.md shows it.
func limitsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Limit | Bound | Answer past it |\n|---|---|---|\n")
	for _, l := range Limits {
		b.WriteString("| " + l.What + " | " + l.Bound + " | " + l.Answer + " |\n")
	}
	return b.String()
}

// docs/limits.md lists the one limits table exactly.
func TestDocsListTheLimits(t *testing.T) {
	raw, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(raw), limitsMarkdown()), "docs/limits.md must carry the limits table:\n%s", limitsMarkdown())
}

func TestDeepPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, ""},
		{`{"a":[1,{"b":[[2]]}]}`, "$.a[1]"},
		{`{"a":[1,[]]}`, "$.a[1]"},
		{`[[1],[[2]]]`, "$[1][0]"},
		{`{"x":{},"y":{"z":[]}}`, "$.y.z"},
		{`{"k\"":"[[[[","v":{"w":{}}}`, "$.v.w"},
	}
	for _, tc := range tests {
		got, err := deepPath([]byte(tc.in), 2)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{`{"a":[}`, `{"a":1} x`, `{"a"`, `[1,]`} {
		_, err := deepPath([]byte(bad), 2)
		assert.Error(t, err, bad)
	}
}
