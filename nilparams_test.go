package platform_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dbplatform/platform-go"
)

// noIO is a transport that refuses every request and keeps its URL.
type noIO struct {
	mu   sync.Mutex
	urls []string
}

func (n *noIO) RoundTrip(r *http.Request) (*http.Response, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.urls = append(n.urls, r.URL.String())
	return nil, errors.New("no I/O in this test")
}

// TestNilParams calls every method of every service of a client with a nil
// params pointer: none panics, and each that needs path values returns an
// *ArgError for "params" that names the params' type (not "organization:
// must not be empty"), before any I/O. A method without path values may run
// with empty params, and then sends nothing of the marker.
func TestNilParams(t *testing.T) {
	t.Parallel()
	tr := &noIO{}
	c, err := platform.NewClient(platform.WithHTTPClient(&http.Client{Transport: tr}), platform.WithoutRetries(),
		platform.WithServiceToken("id", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	ctxType := reflect.TypeFor[context.Context]()
	cv := reflect.ValueOf(c).Elem()
	methods := 0
	for i := range cv.NumField() {
		svc := cv.Field(i)
		if svc.Kind() != reflect.Pointer || !strings.HasSuffix(svc.Type().Elem().Name(), "Service") {
			continue
		}
		for j := range svc.NumMethod() {
			m, mt := svc.Method(j), svc.Type().Method(j)
			ft := m.Type()
			if ft.NumIn() < 2 || ft.In(0) != ctxType || ft.In(1).Kind() != reflect.Pointer {
				continue
			}
			name := svc.Type().Elem().Name() + "." + mt.Name
			methods++
			t.Run(name, func(t *testing.T) {
				err := callNil(t, m)
				var argErr *platform.ArgError
				switch {
				case errors.As(err, &argErr) && argErr.Arg == "params":
					want := ft.In(1).String()
					if !strings.Contains(argErr.Error(), want) || !strings.Contains(argErr.Error(), "must not be nil") {
						t.Errorf("error %q does not say that the %s must not be nil", argErr, want)
					}
				case errors.As(err, &argErr):
					t.Errorf("error %q names a path value, not the nil params", argErr)
				}
			})
		}
	}
	if methods < 200 {
		t.Errorf("checked %d methods; the walk over the services missed some", methods)
	}
	for _, u := range tr.urls {
		if strings.Contains(u, "%00") {
			t.Errorf("a request carries the nil-params marker: %s", u)
		}
	}
}

// callNil calls m with a context, a nil params pointer and zero values for
// the rest (one zero element for a variadic list), and returns its error: the
// last result, or the first error an iterator yields.
func callNil(t *testing.T, m reflect.Value) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("panic: %v", p)
		}
	}()
	ft := m.Type()
	args := []reflect.Value{reflect.ValueOf(t.Context())}
	for i := 1; i < ft.NumIn(); i++ {
		in := ft.In(i)
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			in = in.Elem()
		}
		args = append(args, reflect.Zero(in))
	}
	out := m.Call(args)
	last := out[len(out)-1]
	if last.Type().Kind() == reflect.Func { // an iter.Seq2[*T, error]
		yield := reflect.MakeFunc(last.Type().In(0), func(in []reflect.Value) []reflect.Value {
			if e, ok := in[1].Interface().(error); ok && e != nil {
				err = e
			}
			return []reflect.Value{reflect.ValueOf(false)}
		})
		last.Call([]reflect.Value{yield})
		return err
	}
	if e, ok := last.Interface().(error); ok {
		return e
	}
	return fmt.Errorf("%s returns no error", ft)
}
