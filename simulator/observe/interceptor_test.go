package observe_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
)

// namedInterceptor records, in log, the steps it is around.
type namedInterceptor struct {
	name string
	log  *[]string
}

func (n namedInterceptor) Processor(p simulator.Processor) simulator.Processor { return p }

func (n namedInterceptor) Store(st simulator.Store) simulator.Store {
	return namedStore{Store: st, n: n}
}

func (n namedInterceptor) Job(ctx context.Context, j *simulator.Job, run func(ctx context.Context) error) error {
	*n.log = append(*n.log, n.name+" job "+j.ID)
	return run(ctx)
}

func (n namedInterceptor) Stepped(context.Context, *simulator.Payment, simulator.AuthStep) {
	*n.log = append(*n.log, n.name+" step")
}

type namedStore struct {
	simulator.Store
	n namedInterceptor
}

func (s namedStore) UpdateContext(ctx context.Context, fn func(tx simulator.Tx) error) error {
	*s.n.log = append(*s.n.log, s.n.name+" commit")
	return observe.UpdateContext(ctx, s.Store, fn)
}

// plainStore is a store port that only updates.
type plainStore struct {
	simulator.Store
	log *[]string
}

func (s plainStore) Update(fn func(tx simulator.Tx) error) error {
	*s.log = append(*s.log, "store")
	return nil
}

// TestInterceptorsOrder: the first interceptor registered is the
// outermost, around jobs and the writes made for a step; without one a
// step runs as it is.
func TestInterceptorsOrder(t *testing.T) {
	var log []string
	p := observe.NewPoint(observe.Registry{Interceptors: []observe.Interceptor{namedInterceptor{"a", &log}, namedInterceptor{"b", &log}}})
	require.True(t, p.Intercepted())
	ran := false
	require.NoError(t, p.Job(context.Background(), &simulator.Job{ID: "j1"}, func(context.Context) error { ran = true; return nil }))
	assert.True(t, ran)
	st := p.Store(plainStore{log: &log})
	require.NoError(t, observe.UpdateContext(context.Background(), st, func(simulator.Tx) error { return nil }))
	p.Stepped(context.Background(), &simulator.Payment{}, simulator.AuthStep{})
	assert.Equal(t, []string{"a job j1", "b job j1", "a commit", "b commit", "store", "a step", "b step"}, log)

	none := observe.NewPoint(observe.Registry{})
	assert.False(t, none.Intercepted())
	log = nil
	st = none.Store(plainStore{log: &log})
	require.NoError(t, observe.UpdateContext(context.Background(), st, func(simulator.Tx) error { return nil }))
	assert.Equal(t, []string{"store"}, log)
}
