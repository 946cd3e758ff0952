package observe

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

// TestMigrationNotesMerge: counts not stored yet add to the stored ones,
// per kind and per variant; their last-seen time and example ids are the
// newer; a new kind or variant joins at the end; example ids stay bounded;
// a note's description is its kind's from the table.
func TestMigrationNotesMerge(t *testing.T) {
	t0, t1 := time.Unix(0, 0).UTC(), time.Unix(60, 0).UTC()
	stored := &migrationNotes{TenantID: "t"}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		stored.record(Difference{Kind: simulator.DiffAnswerShape, Message: "old"}, id, t0)
	}
	pending := &migrationNotes{TenantID: "t"}
	pending.record(Difference{Kind: simulator.DiffComputedType, Message: "c"}, "r5", t1)
	pending.record(Difference{Kind: simulator.DiffAnswerShape, Message: "new"}, "r5", t1)
	pending.record(Difference{Kind: simulator.DiffAnswerShape, Message: "new"}, "r6", t1)
	before := deepCopy(t, pending)

	stored.merge((*MigrationNotes)(pending))
	assert.Equal(t, []MigrationNote{
		{Kind: simulator.DiffAnswerShape, Description: noteDescription(simulator.DiffAnswerShape, ""), Count: 6, ExampleRequestIDs: []string{"r2", "r3", "r4", "r5", "r6"}, FirstSeen: t0, LastSeen: t1,
			Variants: []MigrationVariant{
				{Description: "old", Count: 4, ExampleRequestIDs: []string{"r1", "r2", "r3", "r4"}, FirstSeen: t0, LastSeen: t0},
				{Description: "new", Count: 2, ExampleRequestIDs: []string{"r5", "r6"}, FirstSeen: t1, LastSeen: t1},
			}},
		{Kind: simulator.DiffComputedType, Description: noteDescription(simulator.DiffComputedType, ""), Count: 1, ExampleRequestIDs: []string{"r5"}, FirstSeen: t1, LastSeen: t1,
			Variants: []MigrationVariant{{Description: "c", Count: 1, ExampleRequestIDs: []string{"r5"}, FirstSeen: t1, LastSeen: t1}}},
	}, stored.Items)
	assert.Contains(t, stored.Items[0].Description, "currentAttemptId")
	assert.Equal(t, before, pending, "the merged notes are not changed")
	stored.merge(nil)
	assert.Len(t, stored.Items, 2)
}

// TestMigrationNotesVariants: each message of a kind is a variant with its
// own count (the UNSCHEDULED case does not hide under ECOMMERCE); a kind
// the table no longer has keeps its message as description; variants are
// bounded, the note's count is not.
func TestMigrationNotesVariants(t *testing.T) {
	at := time.Unix(0, 0).UTC()
	m := &migrationNotes{}
	m.record(Difference{Kind: simulator.DiffComputedType, Message: "ECOMMERCE"}, "r1", at)
	m.record(Difference{Kind: simulator.DiffComputedType, Message: "UNSCHEDULED"}, "r2", at)
	m.record(Difference{Kind: simulator.DiffComputedType, Message: "ECOMMERCE"}, "r3", at)
	n := m.Items[0]
	assert.EqualValues(t, 3, n.Count)
	assert.Equal(t, []string{"ECOMMERCE", "UNSCHEDULED"}, []string{n.Variants[0].Description, n.Variants[1].Description})
	assert.Equal(t, []int64{2, 1}, []int64{n.Variants[0].Count, n.Variants[1].Count})
	assert.Equal(t, []string{"r1", "r3"}, n.Variants[0].ExampleRequestIDs)

	m.record(Difference{Kind: "capture-is-final", Message: "a stored kind"}, "r4", at)
	assert.Equal(t, "a stored kind", m.Items[1].Description)

	for i := range MigrationVariants + 5 {
		m.record(Difference{Kind: simulator.DiffNewFields, Message: fmt.Sprint("field ", i)}, "", at)
	}
	assert.Len(t, m.Items[2].Variants, MigrationVariants)
	assert.EqualValues(t, MigrationVariants+5, m.Items[2].Count)
}
