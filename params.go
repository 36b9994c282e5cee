package platform

import "reflect"

// orZero returns p, or a new zero value when p is nil, so that methods treat
// a nil params pointer as empty params. In that value the path values are
// marked (see markNil), so that required reports the nil pointer rather than
// an empty path value; a method without path values runs as with empty
// params.
func orZero[T any](p *T) *T {
	if p == nil {
		p = new(T)
		markNil(reflect.ValueOf(p).Elem(), reflect.TypeFor[*T]().String())
	}
	return p
}

// nilMark starts the value markNil gives the path values of the params that
// stand in for a nil pointer; the rest of the value is the params' type. No
// caller's value starts with a NUL byte.
const nilMark = "\x00nil "

// markNil sets every path value of the params struct v (string fields
// tagged json:"-" and url:"-", in embedded structs too) to nilMark followed
// by typ, the params' type.
func markNil(v reflect.Value, typ string) {
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			markNil(v.Field(i), typ)
		case f.IsExported() && f.Type.Kind() == reflect.String && f.Tag.Get("json") == "-" && f.Tag.Get("url") == "-":
			v.Field(i).SetString(nilMark + typ)
		}
	}
}
