package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

func (s *Server) approveAttempt(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "PaymentAttemptApproveRequest", nil, true, uuidParam(c, "id")...); err != nil {
		return err
	}
	res, err := s.svc.ApproveAttempt(c.Request().Context(), tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, approveDTO{PaymentAttemptID: res.AttemptID, MerchantPaymentID: res.PaymentID})
}

func (s *Server) abortAttempt(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "PaymentAttemptAbortRequest", nil, true, uuidParam(c, "id")...); err != nil {
		return err
	}
	a, err := s.svc.AbortAttempt(tenantOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, attemptStatusDTO{PaymentAttemptID: a.ID, Status: string(a.Status)})
}
