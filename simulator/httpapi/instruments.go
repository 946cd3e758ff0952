package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

type vaultBody struct {
	CustomerID string `json:"customerId"`
	Verify     bool   `json:"verify"`
}

func (s *Server) vault(c echo.Context) error {
	var req vaultBody
	if _, err := decodeRequest(c, vaultRequest, "VaultPaymentInstrumentAPIRequest", &req, false); err != nil {
		return err
	}
	t := tenantOf(c)
	in, err := s.svc.Vault(c.Request().Context(), t, c.Param("token"), req.CustomerID, req.Verify)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toInstrumentDTO(in, t.First6Digits))
}

func (s *Server) listInstruments(c echo.Context) error {
	cust := c.QueryParam("customer_id")
	if cust == "" {
		return simulator.ValidationError("PaymentMethodListQuery", simulator.FieldError{Path: "$.customer_id", Description: "Field required"})
	}
	t := tenantOf(c)
	list, err := s.svc.Instruments(t, cust)
	if err != nil {
		return err
	}
	out := struct {
		Data []instrumentDTO `json:"data"`
	}{Data: []instrumentDTO{}}
	for _, in := range list {
		out.Data = append(out.Data, toInstrumentDTO(in, t.First6Digits))
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) deleteInstrument(c echo.Context) error {
	t := tenantOf(c)
	in, err := s.svc.DeleteInstrument(t, c.Param("token"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toInstrumentDTO(in, t.First6Digits))
}

func (s *Server) setDefaultInstrument(c echo.Context) error {
	if _, err := decodeRequest(c, emptyRequest, "SetDefaultPaymentMethodRequest", nil, true); err != nil {
		return err
	}
	t := tenantOf(c)
	in, err := s.svc.SetDefaultInstrument(t, c.Param("token"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toInstrumentDTO(in, t.First6Digits))
}
