package fake

// This file holds what several groups' updates share: applying the fields
// a request gives.

// setIf sets *dst to *v when v is given.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
