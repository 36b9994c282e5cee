package jsonread

import "reflect"

// FastPath decodes data into v with the fast path alone, returning an error
// where Unmarshal would start over with encoding/json, so that tests can
// check which inputs take it.
func FastPath(data []byte, v any) error {
	d := decoder{data: data}
	if err := d.value(planFor(reflectElem(v).Type()), reflectElem(v)); err != nil {
		return err
	}
	if d.space(); d.off != len(data) {
		return errFallback
	}
	return nil
}

func reflectElem(v any) reflect.Value { return reflect.ValueOf(v).Elem() }
