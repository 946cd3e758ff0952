package service

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// TenantSpec describes a tenant to create or (for config tenants) to ensure.
type TenantSpec struct {
	ID            string
	APIKeys       []simulator.APIKey
	SigningSecret string
	WebhookURL    string
	// WebhookVersion, when set, replaces the tenant's webhook version at
	// every start ("": the tenant keeps its own).
	WebhookVersion simulator.APIVersion
	First6Digits   bool
	TTL            time.Duration
}

// EnsureTenant creates or updates a tenant defined by configuration (the
// default tenant and the config file's tenants): keys, secret and webhook URL
// follow the configuration at every start; data and clock stay. The caller
// checks spec.WebhookURL with CheckWebhookEndpoint (a refused one is a
// configuration error, reported before any tenant is touched).
func (s *Service) EnsureTenant(spec TenantSpec) (*simulator.Tenant, error) {
	var out *simulator.Tenant
	err := s.store.Update(func(tx simulator.Tx) error {
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
			t = &simulator.Tenant{ID: spec.ID, CreatedAt: simulator.NormTime(s.clock.Now())}
		}
		t.APIKeys, t.SigningSecret, t.FromConfig = spec.APIKeys, spec.SigningSecret, true
		if spec.WebhookURL != "" {
			t.WebhookURL = spec.WebhookURL
		}
		if spec.WebhookVersion != "" {
			t.WebhookVersion = spec.WebhookVersion
		}
		t.First6Digits = spec.First6Digits
		out = t
		return tx.PutTenant(t)
	})
	return out, err
}

// CreateTenant makes a new tenant with its own data, clock, scenarios,
// webhook endpoint and secret (POST /_sandbox/tenants). Without scopes its key
// has every scope. A ttl deletes the tenant and its data when it passes on
// the wall clock (ExpireTenants); the tenant's own clock never expires it.
// Its webhook version is webhookVersion, or the configured default
// (Config.WebhookVersion) when that is "".
// Errors: RequestValidationError (webhookURL refused by CheckWebhookEndpoint,
// webhookVersion not one of simulator.APIVersions).
func (s *Service) CreateTenant(scopes []simulator.Scope, webhookURL string, webhookVersion simulator.APIVersion, ttl time.Duration) (*simulator.Tenant, error) {
	if err := s.CheckWebhookEndpoint(webhookURL); err != nil {
		return nil, WebhookURLError("TenantCreateRequest", "$.webhookUrl", "webhookUrl", err)
	}
	if webhookVersion != "" {
		if err := simulator.CheckAPIVersion(string(webhookVersion)); err != nil {
			return nil, WebhookURLError("TenantCreateRequest", "$.webhookVersion", "webhookVersion", err)
		}
	}
	if scopes == nil {
		scopes = slices.Clone(simulator.AllScopes)
	}
	now := simulator.NormTime(s.clock.Now())
	id, key, secret := s.newTenantCredentials()
	t := &simulator.Tenant{
		ID:             id,
		APIKeys:        []simulator.APIKey{{Key: key, Scopes: scopes}},
		SigningSecret:  secret,
		WebhookURL:     webhookURL,
		WebhookVersion: webhookVersion.OrDefault(s.webhookVersion),
		CreatedAt:      now,
	}
	if ttl > 0 {
		t.ExpiresAt = simulator.NormTime(now.Add(ttl))
	}
	if err := s.store.Update(func(tx simulator.Tx) error { return tx.PutTenant(t) }); err != nil {
		return nil, err
	}
	if ttl > 0 {
		s.sched.tenantExpiriesChanged() // the next tenant expiry may be this one
	}
	return t, nil
}

// newTenantCredentials draws a new tenant's id, API key and signing secret.
func (s *Service) newTenantCredentials() (id, key, secret string) {
	id = s.ids.NewID(simulator.IDSecret)
	if len(id) > 16 { // ids of any length (test IDGens make short ones)
		id = id[:16]
	}
	key = simulator.WithInstance(s.instance, "sk_"+s.ids.NewID(simulator.IDSecret))
	return simulator.WithInstance(s.instance, "t_"+id), key, "whsec_" + s.ids.NewID(simulator.IDSecret)
}

// Authenticate resolves an API key to its tenant and key record.
// Errors: Unauthorized (the key of a tenant whose ttl passed, for
// ExpiredTenantWindow after, says so and when).
func (s *Service) Authenticate(key string) (*simulator.Tenant, simulator.APIKey, error) {
	if key == "" {
		return nil, simulator.APIKey{}, simulator.Errorf(simulator.CodeUnauthorized, "The X-API-KEY header is missing").
			WithRecovery("Send your API key in the X-API-KEY header.")
	}
	t, err := s.tenantByAPIKey(key)
	if err != nil {
		return nil, simulator.APIKey{}, err
	}
	if t == nil {
		var x *simulator.ExpiredTenant
		if err := s.store.View(func(tx simulator.Tx) (err error) { x, err = tx.ExpiredTenantByAPIKey(key); return }); err != nil {
			return nil, simulator.APIKey{}, err
		}
		if x != nil && s.clock.Now().Before(x.DeletedAt.Add(simulator.ExpiredTenantWindow)) {
			return nil, simulator.APIKey{}, errTenantExpired(x.TenantID, x.ExpiredAt)
		}
		if other := simulator.ForeignInstance(s.instance, key); other != "" {
			return nil, simulator.APIKey{}, simulator.ErrForeignInstance(simulator.CodeUnauthorized, "API key", other, s.instance)
		}
		return nil, simulator.APIKey{}, simulator.Errorf(simulator.CodeUnauthorized, "The API key is not valid").
			WithRecovery("Use an API key of a tenant of this sandbox.")
	}
	if !t.ExpiresAt.IsZero() && !s.clock.Now().Before(t.ExpiresAt) { // past its ttl, not yet swept
		s.sched.tenantExpiriesChanged()
		return nil, simulator.APIKey{}, errTenantExpired(t.ID, t.ExpiresAt)
	}
	k, _ := t.Key(key)
	return t, k, nil
}

// errTenantExpired is the 401 of a key whose tenant's ttl passed.
func errTenantExpired(id string, at time.Time) *simulator.Error {
	return simulator.Errorf(simulator.CodeUnauthorized, "The API key belonged to tenant %s, which expired at %s (its ttl runs on the wall clock)", id, simulator.FormatTime(at)).
		WithRecovery("Create a new tenant (POST /_sandbox/tenants), with a ttl that covers the whole job.")
}

// ExpireTenants deletes, with all their data, the tenants whose ttl has
// passed on the wall clock, leaving an ExpiredTenant record of each; drops
// the records older than ExpiredTenantWindow and the oldest beyond
// MaxExpiredTenants. It answers the next tenant's expiry and when the
// oldest record left leaves its window (zero: none). The scheduler runs it.
func (s *Service) ExpireTenants() (nextExpiry, nextPrune time.Time, err error) {
	now := simulator.NormTime(s.clock.Now())
	const batch = 100
	for {
		var gone []string
		err := s.store.Update(func(tx simulator.Tx) error {
			ids, err := tx.ExpiringTenants(now, batch)
			if err != nil {
				return err
			}
			for _, id := range ids {
				t, err := tx.Tenant(id)
				if err != nil {
					return err
				}
				if t == nil || t.ExpiresAt.IsZero() || t.ExpiresAt.After(now) {
					continue
				}
				x := &simulator.ExpiredTenant{TenantID: t.ID, ExpiredAt: t.ExpiresAt, DeletedAt: now}
				for _, k := range t.APIKeys {
					x.APIKeys = append(x.APIKeys, k.Key)
				}
				if err := tx.DeleteTenantData(t.ID, true); err != nil {
					return err
				}
				if err := tx.PutExpiredTenant(x); err != nil {
					return err
				}
				gone = append(gone, t.ID)
			}
			return nil
		})
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		for _, id := range gone {
			s.sched.forget(id)
			s.log.Info("tenant expired: its ttl passed (wall clock); deleted with its data", "tenant", id)
		}
		if len(gone) < batch {
			break
		}
	}
	var oldest time.Time
	err = s.store.Update(func(tx simulator.Tx) (err error) {
		if oldest, err = tx.PruneExpiredTenants(simulator.MaxExpiredTenants, now.Add(-simulator.ExpiredTenantWindow)); err != nil {
			return err
		}
		nextExpiry, err = tx.NextTenantExpiry()
		return err
	})
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	if !oldest.IsZero() {
		nextPrune = oldest.Add(simulator.ExpiredTenantWindow)
	}
	return nextExpiry, nextPrune, nil
}

// ConvertTenantExpiries turns the tenant-clock expiries of stored tenants
// (TenantClockExpiresAt) into wall-clock ones that keep each tenant's
// remaining lifetime. Such a tenant was deleted when base clock + its
// ClockOffset reached TenantClockExpiresAt, that is when the wall clock
// reaches TenantClockExpiresAt - ClockOffset; that instant becomes its
// ExpiresAt, and its expire-tenant job goes. Run it once at start, before
// the scheduler; it answers how many tenants it converted (0 on every
// later start).
func (s *Service) ConvertTenantExpiries() (int, error) {
	var ids []string
	err := s.store.View(func(tx simulator.Tx) error {
		all, err := tx.Tenants()
		for _, t := range all {
			if !t.TenantClockExpiresAt.IsZero() {
				ids = append(ids, t.ID)
			}
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids { // one transaction per tenant: a write touches one tenant's data
		converted := false
		err := s.store.Update(func(tx simulator.Tx) error {
			t, err := tx.Tenant(id)
			if err != nil || t == nil || t.TenantClockExpiresAt.IsZero() {
				return err
			}
			cur := t.Clone()
			cur.ExpiresAt = simulator.NormTime(cur.TenantClockExpiresAt.Add(-cur.ClockOffset))
			cur.TenantClockExpiresAt = time.Time{}
			jobs, err := tx.DueJobs(cur.ID, time.Unix(1<<40, 0), 0)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				if j.Kind == simulator.JobExpireTenant {
					if err := tx.DeleteJob(j); err != nil {
						return err
					}
				}
			}
			converted = true
			return tx.PutTenant(cur)
		})
		if err != nil {
			return n, err
		}
		if converted {
			n++
		}
	}
	if n > 0 {
		s.sched.tenantExpiriesChanged()
	}
	return n, nil
}

// Tenant reads a tenant again (its settings may have changed).
func (s *Service) Tenant(id string) (*simulator.Tenant, error) {
	t, err := s.tenantByID(id)
	if err == nil && t == nil {
		err = simulator.Errorf(simulator.CodeUnauthorized, "The tenant no longer exists")
	}
	return t, err
}

// Now is the tenant's clock.
func (s *Service) Now(t *simulator.Tenant) time.Time { return s.now(t) }

// ResetTenant deletes the tenant's data, clock offset, pending one-shot, jobs
// and outbox; its keys, secret, webhook endpoint and scenarios stay.
func (s *Service) ResetTenant(t *simulator.Tenant) error {
	defer s.observers.Drop(t.ID)()
	return s.store.Update(func(tx simulator.Tx) error {
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
		cur.ClockOffset = 0 // its ttl (wall clock) stays
		cur.Next = nil
		return tx.PutTenant(cur)
	})
}

// DeleteTenant removes the tenant and all its data; its keys then answer
// the plain 401 (no ExpiredTenant record).
func (s *Service) DeleteTenant(t *simulator.Tenant) error {
	defer s.observers.Drop(t.ID)()
	err := s.store.Update(func(tx simulator.Tx) error { return tx.DeleteTenantData(t.ID, true) })
	if err == nil {
		s.sched.forget(t.ID)
	}
	return err
}
