package service

import (
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// CreateSession creates a client session with its client token (24h on the
// tenant's clock). data has passed the request schema; here the cross-field
// rules apply. Errors: RequestValidationError, MetadataContainsEmptyKey.
func (s *Service) CreateSession(t *simulator.Tenant, data simulator.SessionData, mode simulator.ApprovalMode) (*simulator.ClientSession, error) {
	if err := checkSessionData("ClientSessionAPIRequest", &data); err != nil {
		return nil, err
	}
	if mode == "" {
		mode = simulator.ApprovalAuto
	}
	now := s.now(t)
	id := s.ids.NewID(simulator.IDUUID)
	cs := &simulator.ClientSession{
		ID: id, TenantID: t.ID, ClientToken: s.sessionToken(t.ID, id),
		CreatedAt: now, ExpiresAt: now.Add(simulator.ClientTokenTTL), ApprovalMode: mode, Data: data,
	}
	if err := s.store.Update(func(tx simulator.Tx) error { return tx.PutSession(cs) }); err != nil {
		return nil, err
	}
	return cs, nil
}

// checkSessionData applies the cross-field rules; an empty metadata key is
// 400 MetadataContainsEmptyKey only when nothing else is wrong, else one of
// the 422's broken rules.
func checkSessionData(model string, d *simulator.SessionData) error {
	errs := d.CheckRules()
	if simulator.EmptyMetadataKey(d.Metadata) {
		if len(errs) == 0 {
			return simulator.ErrEmptyMetadataKey()
		}
		errs = append(errs, simulator.EmptyMetadataKeyField)
	}
	if len(errs) > 0 {
		return simulator.ValidationError(model, errs...)
	}
	return nil
}

// Session returns the live session of a client token of tenant t (the
// caller's own). Errors: ClientSessionValidationError (missing, unknown, expired, another tenant's).
func (s *Service) Session(t *simulator.Tenant, clientToken string) (*simulator.ClientSession, error) {
	if clientToken == "" {
		return nil, simulator.ErrClientToken()
	}
	var cs *simulator.ClientSession
	err := s.store.View(func(tx simulator.Tx) (err error) { cs, err = tx.SessionByToken(clientToken); return })
	if err != nil {
		return nil, err
	}
	if cs == nil || cs.TenantID != t.ID || cs.Expired(s.now(t)) {
		return nil, simulator.ErrClientToken()
	}
	return cs, nil
}

// clientTokenTx resolves a client token of any tenant (the client side has
// no API key) to its live session and tenant, inside tx.
func (s *Service) clientTokenTx(tx simulator.Tx, clientToken string) (*simulator.ClientSession, *simulator.Tenant, error) {
	if clientToken == "" {
		return nil, nil, simulator.ErrClientToken()
	}
	cs, err := tx.SessionByToken(clientToken)
	if err != nil || cs == nil {
		return nil, nil, errorsJoin(err, s.errClientToken(clientToken))
	}
	t, err := tx.Tenant(cs.TenantID)
	if err != nil || t == nil || cs.Expired(s.now(t)) {
		return nil, nil, errorsJoin(err, simulator.ErrClientToken())
	}
	return cs, t, nil
}

// sessionFor resolves a client token of tenant t (merchant side); another
// tenant's token behaves as unknown.
func sessionFor(tx simulator.Tx, t *simulator.Tenant, clientToken string, now time.Time) (*simulator.ClientSession, error) {
	if clientToken == "" {
		return nil, simulator.ErrClientToken()
	}
	cs, err := tx.SessionByToken(clientToken)
	if err != nil {
		return nil, err
	}
	if cs == nil || cs.TenantID != t.ID || cs.Expired(now) {
		return nil, simulator.ErrClientToken()
	}
	return cs, nil
}

// UpdateSession applies PATCH /client-session: merge computes the new content
// from the current one (field by field, arrays and metadata replaced, null
// clears) and the cross-field rules are checked on the merged session. The
// session is unchanged on any error.
func (s *Service) UpdateSession(t *simulator.Tenant, clientToken string, merge func(cur simulator.SessionData) (simulator.SessionData, error)) (*simulator.ClientSession, error) {
	var out *simulator.ClientSession
	err := s.store.Update(func(tx simulator.Tx) error {
		cs, err := sessionFor(tx, t, clientToken, s.now(t))
		if err != nil {
			return err
		}
		data, err := merge(cs.Data)
		if err != nil {
			return err
		}
		if err := checkSessionData("ClientSessionUpdateAPIRequest", &data); err != nil {
			return err
		}
		cs.Data = data
		out = cs
		return tx.PutSession(cs)
	})
	return out, err
}

// ClientSession resolves a client token of any tenant (the client side has no
// API key) to its live session and tenant, both the caller's own. Errors: ClientSessionValidationError.
func (s *Service) ClientSession(clientToken string) (*simulator.ClientSession, *simulator.Tenant, error) {
	if clientToken == "" {
		return nil, nil, simulator.ErrClientToken()
	}
	var cs *simulator.ClientSession
	err := s.store.View(func(tx simulator.Tx) (err error) { cs, err = tx.SessionByToken(clientToken); return })
	if err != nil || cs == nil {
		return nil, nil, errorsJoin(err, s.errClientToken(clientToken))
	}
	t, err := s.tenantByID(cs.TenantID)
	if err != nil || t == nil || cs.Expired(s.now(t)) {
		return nil, nil, errorsJoin(err, simulator.ErrClientToken())
	}
	return cs, t, nil
}

// errClientToken is the error of an unknown client (or 3DS challenge) token:
// ClientSessionValidationError, naming the instance that issued it when that
// is another one.
func (s *Service) errClientToken(tok string) *simulator.Error {
	if other := simulator.ForeignInstance(s.instance, tok); other != "" {
		return simulator.ErrForeignInstance(simulator.CodeClientSessionValidationError, "client token", other, s.instance)
	}
	return simulator.ErrClientToken()
}
