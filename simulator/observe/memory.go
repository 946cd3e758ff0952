package observe

import (
	"encoding/json"
	"sync"
)

// Memory is a Store in memory, the fallback for a store that keeps no
// observers' records (test doubles): every tenant is taken to exist, and
// a reset or a deletion of a tenant leaves its records. Records are kept
// encoded, so a load hands out a value its caller owns.
type Memory struct {
	mu      sync.Mutex
	records map[[2]string][]byte
}

var _ Store = (*Memory)(nil)

// LoadObserved implements Store.
func (m *Memory) LoadObserved(tenantID, kind string, v any) (bool, error) {
	m.mu.Lock()
	b, ok := m.records[[2]string{tenantID, kind}]
	m.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

// SaveObserved implements Store.
func (m *Memory) SaveObserved(tenantID string, records ...Record) error {
	enc := make([][]byte, len(records))
	for i, r := range records {
		b, err := json.Marshal(r.Value)
		if err != nil {
			return err
		}
		enc[i] = b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.records == nil {
		m.records = map[[2]string][]byte{}
	}
	for i, r := range records {
		m.records[[2]string{tenantID, r.Kind}] = enc[i]
	}
	return nil
}
