package simulator

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// TenantSpec describes a tenant to create or (for config tenants) to ensure.
type TenantSpec struct {
	ID            string
	APIKeys       []APIKey
	SigningSecret string
	WebhookURL    string
	First6Digits  bool
	TTL           time.Duration
}

// EnsureTenant creates or updates a tenant defined by configuration (the
// default tenant and the config file's tenants): keys, secret and webhook URL
// follow the configuration at every start; data and clock stay.
func (s *Service) EnsureTenant(spec TenantSpec) (*Tenant, error) {
	var out *Tenant
	err := s.Store.Update(func(tx Tx) error {
		for _, k := range spec.APIKeys {
			other, err := tx.TenantByAPIKey(k.Key)
			if err != nil {
				return err
			}
			if other != nil && other.ID != spec.ID {
				return fmt.Errorf("API key of tenant %q is already used by tenant %q", spec.ID, other.ID)
			}
		}
		t, err := tx.Tenant(spec.ID)
		if err != nil {
			return err
		}
		if t == nil {
			t = &Tenant{ID: spec.ID, CreatedAt: norm(s.Clock.Now())}
		}
		t.APIKeys, t.SigningSecret, t.FromConfig = spec.APIKeys, spec.SigningSecret, true
		if spec.WebhookURL != "" {
			t.WebhookURL = spec.WebhookURL
		}
		t.First6Digits = spec.First6Digits
		out = t
		return tx.PutTenant(t)
	})
	return out, err
}

// CreateTenant makes a new tenant with its own data, clock, scenarios,
// webhook endpoint and secret (POST /_sandbox/tenants). Without scopes its key
// has every scope. A ttl deletes the tenant and its data when it passes.
func (s *Service) CreateTenant(scopes []Scope, webhookURL string, ttl time.Duration) (*Tenant, error) {
	if scopes == nil {
		scopes = slices.Clone(AllScopes)
	}
	now := norm(s.Clock.Now())
	id := s.IDs.NewID(IDSecret)
	if len(id) > 16 { // ids of any length (test IDGens make short ones)
		id = id[:16]
	}
	t := &Tenant{
		ID:            "t_" + id,
		APIKeys:       []APIKey{{Key: "sk_" + s.IDs.NewID(IDSecret), Scopes: scopes}},
		SigningSecret: "whsec_" + s.IDs.NewID(IDSecret),
		WebhookURL:    webhookURL,
		CreatedAt:     now,
	}
	if ttl > 0 {
		t.ExpiresAt = now.Add(ttl)
	}
	err := s.Store.Update(func(tx Tx) error {
		if err := tx.PutTenant(t); err != nil {
			return err
		}
		if ttl > 0 {
			return tx.PutJob(s.newJob(t, JobExpireTenant, t.ExpiresAt))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ttl > 0 {
		s.kick()
	}
	return t, nil
}

// Authenticate resolves an API key to its tenant and key record.
// Errors: Unauthorized.
func (s *Service) Authenticate(key string) (*Tenant, APIKey, error) {
	if key == "" {
		return nil, APIKey{}, Errorf(CodeUnauthorized, "The X-API-KEY header is missing").
			WithRecovery("Send your API key in the X-API-KEY header.")
	}
	t, err := s.tenantByAPIKey(key)
	if err != nil {
		return nil, APIKey{}, err
	}
	if t == nil {
		return nil, APIKey{}, Errorf(CodeUnauthorized, "The API key is not valid").
			WithRecovery("Use an API key of a tenant of this sandbox.")
	}
	k, _ := t.Key(key)
	return t, k, nil
}

// Tenant reads a tenant again (its settings may have changed).
func (s *Service) Tenant(id string) (*Tenant, error) {
	t, err := s.tenantByID(id)
	if err == nil && t == nil {
		err = Errorf(CodeUnauthorized, "The tenant no longer exists")
	}
	return t, err
}

// Now is the tenant's clock.
func (s *Service) Now(t *Tenant) time.Time { return s.now(t) }

// ResetTenant deletes the tenant's data, clock offset, pending one-shot, jobs
// and outbox; its keys, secret, webhook endpoint and scenarios stay.
func (s *Service) ResetTenant(t *Tenant) error {
	return s.Store.Update(func(tx Tx) error {
		cur, err := tx.Tenant(t.ID)
		if err != nil {
			return err
		}
		if cur == nil {
			return errors.New("tenant vanished")
		}
		if err := tx.DeleteTenantData(t.ID, false); err != nil {
			return err
		}
		cur.ClockOffset = 0
		cur.Next = nil
		if !cur.ExpiresAt.IsZero() { // keep its ttl
			return errors.Join(tx.PutTenant(cur), tx.PutJob(s.newJob(cur, JobExpireTenant, cur.ExpiresAt)))
		}
		return tx.PutTenant(cur)
	})
}

// DeleteTenant removes the tenant and all its data.
func (s *Service) DeleteTenant(t *Tenant) error {
	err := s.Store.Update(func(tx Tx) error { return tx.DeleteTenantData(t.ID, true) })
	if err == nil {
		s.sched.forget(t.ID)
	}
	return err
}
