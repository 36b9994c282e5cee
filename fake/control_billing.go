package fake

import "net/http"

// The control endpoint of billing: the payment method, which the API can
// show and delete but not add (see billing.go).

// controlBillingRoutes are the billing endpoints.
func controlBillingRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPut, "organizations/{organization}/billing/payment-method", http.StatusNoContent, ctlBody((*Server).controlSetPaymentMethod)},
	}
}

// controlSetPaymentMethod serves PUT /_fake/organizations/{org}/billing/payment-method.
func (s *Server) controlSetPaymentMethod(r *http.Request, b *PaymentMethod) (any, error) {
	return nil, refused(s.SetPaymentMethod(r.PathValue("organization"), *b))
}
