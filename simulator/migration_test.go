package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMigrationNotesMerge: counts not stored yet add to the stored ones;
// their description, last-seen time and example ids are the newer; a new
// kind joins at the end; example ids stay bounded.
func TestMigrationNotesMerge(t *testing.T) {
	t0, t1 := time.Unix(0, 0).UTC(), time.Unix(60, 0).UTC()
	stored := &MigrationNotes{TenantID: "t"}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		stored.Record(MigrationHit{Kind: DiffAnswerShape, Message: "old"}, id, t0)
	}
	pending := &MigrationNotes{TenantID: "t"}
	pending.Record(MigrationHit{Kind: DiffComputedType, Message: "c"}, "r5", t1)
	pending.Record(MigrationHit{Kind: DiffAnswerShape, Message: "new"}, "r5", t1)
	pending.Record(MigrationHit{Kind: DiffAnswerShape, Message: "new"}, "r6", t1)
	before := pending.Clone()

	stored.Merge(pending)
	assert.Equal(t, []MigrationNote{
		{Kind: DiffAnswerShape, Description: "new", Count: 6, ExampleRequestIDs: []string{"r2", "r3", "r4", "r5", "r6"}, FirstSeen: t0, LastSeen: t1},
		{Kind: DiffComputedType, Description: "c", Count: 1, ExampleRequestIDs: []string{"r5"}, FirstSeen: t1, LastSeen: t1},
	}, stored.Items)
	assert.Equal(t, before, pending, "the merged notes are not changed")
	stored.Merge(nil)
	assert.Len(t, stored.Items, 2)
}
