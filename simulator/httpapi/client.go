package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

type tokenizeBody struct {
	PaymentInstrument struct {
		Number          string `json:"number"`
		CVV             string `json:"cvv"`
		ExpirationMonth string `json:"expirationMonth"`
		ExpirationYear  string `json:"expirationYear"`
		CardholderName  string `json:"cardholderName"`
	} `json:"paymentInstrument"`
}

// clientSession resolves X-Client-Token before anything else (it is the
// client side's credential) and records the tenant for the log.
func (s *Server) clientSession(c echo.Context) (*simulator.ClientSession, *simulator.Tenant, error) {
	cs, t, err := s.svc.ClientSession(c.Request().Header.Get("X-Client-Token"))
	if err != nil {
		return nil, nil, err
	}
	setTenant(c, t)
	return cs, t, nil
}

func (s *Server) tokenize(c echo.Context) error {
	if _, _, err := s.clientSession(c); err != nil {
		return err
	}
	var req tokenizeBody
	if _, err := decodeRequest(c, tokenizeRequest, "PaymentInstrumentTokenizationRequest", &req, false); err != nil {
		return err
	}
	pi := req.PaymentInstrument
	res, err := s.svc.Tokenize(c.Request().Header.Get("X-Client-Token"), service.CardInput{
		Number: pi.Number, CVV: pi.CVV, ExpirationMonth: pi.ExpirationMonth,
		ExpirationYear: pi.ExpirationYear, CardholderName: pi.CardholderName,
	})
	if err != nil {
		return err
	}
	in := res.Instrument
	out := tokenizeDTO{
		Token: in.Token, TokenType: string(in.TokenType), PaymentInstrumentType: simulator.PaymentMethodTypeCard,
		PaymentInstrumentData: toCardDTO(in.CardData(res.Tenant.First6Digits)), AnalyticsID: in.AnalyticsID,
	}
	if res.Attempt != nil {
		out.PaymentAttemptID = res.Attempt.ID
	}
	return writeJSON(c, http.StatusOK, out)
}

type clientPaymentRequest struct {
	PaymentMethodToken string   `json:"paymentMethodToken"`
	Expand             []string `json:"expand"`
}

func (s *Server) clientCreatePayment(c echo.Context) error {
	cs, t, err := s.clientSession(c)
	if err != nil {
		return err
	}
	var req clientPaymentRequest
	if _, err := decodeRequest(c, clientPaymentCreate, "ClientPaymentCreationRequest", &req, false); err != nil {
		return err
	}
	p, err := s.svc.CreatePayment(c.Request().Context(), t, service.PaymentRequest{
		Token: req.PaymentMethodToken, ClientSessionID: cs.ID,
		IdempotencyKey: c.Request().Header.Get("X-Idempotency-Key"),
	})
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, expands(req.Expand))
}

func (s *Server) clientResume(c echo.Context) error {
	cs, t, err := s.clientSession(c)
	if err != nil {
		return err
	}
	var req resumeBody
	if _, err := decodeRequest(c, paymentResume, "PaymentResumeAPIRequest", &req, false); err != nil {
		return err
	}
	p, err := s.svc.Payment(t, c.Param("id"))
	if err != nil {
		return err
	}
	if p.SessionID != cs.ID {
		return simulator.Errorf(simulator.CodePaymentError, "The payment could not be found")
	}
	p, err = s.svc.ResumePayment(c.Request().Context(), t, p.ID, req.ResumeToken, c.Request().Header.Get("X-Idempotency-Key"))
	if err != nil {
		return err
	}
	return writePayment(c, http.StatusOK, p, p.APIVersion, expands(req.Expand))
}

type threeDSRequestBody struct {
	Result string `json:"result"`
}

func (s *Server) clientChallenge(c echo.Context) error {
	var req threeDSRequestBody
	if _, err := decodeRequest(c, threeDSRequest, "ThreeDSChallengeRequest", &req, false); err != nil {
		return err
	}
	resume, p, err := s.svc.AnswerChallenge(c.Request().Header.Get("X-Client-Token"), req.Result)
	if err != nil {
		return err
	}
	setTenant(c, &simulator.Tenant{ID: p.TenantID})
	return writeJSON(c, http.StatusOK, map[string]string{"resumeToken": resume})
}
