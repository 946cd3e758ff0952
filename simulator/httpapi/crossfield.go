package httpapi

import "github.com/paysandbox/paysandbox/simulator"

// sessionCrossFieldRules are the cross-field rules of a new client session,
// checked on the raw tree so that they are reported together with the
// schema's rules (a 422 lists every broken rule at once): currencyCode
// whenever any amount is given (top level, line items, fees, shipping).
func sessionCrossFieldRules(tree map[string]any) []simulator.FieldError {
	if cur, ok := tree["currencyCode"]; ok && cur != nil {
		return nil
	}
	if treeHasAmount(tree) {
		return []simulator.FieldError{{Path: "$.currencyCode", Description: "currencyCode is required when any amount is given"}}
	}
	return nil
}

// treeHasAmount reports whether a session body gives any amount.
func treeHasAmount(tree map[string]any) bool {
	if tree["amount"] != nil {
		return true
	}
	order, _ := tree["order"].(map[string]any)
	if order == nil {
		return false
	}
	items, _ := order["lineItems"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && (m["amount"] != nil || m["discountAmount"] != nil || m["taxAmount"] != nil) {
			return true
		}
	}
	fees, _ := order["fees"].([]any)
	for _, f := range fees {
		if m, ok := f.(map[string]any); ok && m["amount"] != nil {
			return true
		}
	}
	ship, _ := order["shipping"].(map[string]any)
	return ship != nil && ship["amount"] != nil
}
