package fake_test

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzControlBodies sends any body to the control endpoints that take one
// (controlEndpoints' POSTs and PUTs, but advance and flush, which take a
// query), on a fresh world with the team t. The answer is the endpoint's
// success or a 4xx in the API's error format, never a 5xx; a refused
// request changes nothing opWorldState or the fault list shows.
func FuzzControlBodies(f *testing.F) {
	var eps []struct{ method, path, pattern string }
	for _, ep := range controlEndpoints() {
		if (ep.method == http.MethodPost || ep.method == http.MethodPut) && !strings.Contains(ep.path, "?") && ep.path != "deliveries/flush" {
			eps = append(eps, ep)
		}
	}
	f.Fuzz(func(t *testing.T, pick uint8, body []byte) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		ep := eps[int(pick)%len(eps)]
		w := newOpWorld(t)
		teamCreate(t, w.srv, "T")
		state := func() (worldState, string) {
			return opWorldState(t, w.srv), string(send(t, w.srv, http.MethodGet, "/_fake/faults", admin(w.srv), "").body)
		}
		beforeWorld, beforeFaults := state()
		r := send(t, w.srv, ep.method, "/_fake/"+ep.path, admin(w.srv), string(body))
		if r.status < 300 {
			return
		}
		fuzzCheckAnswer(t, ep.method+" /_fake/"+ep.pattern, 0, r)
		afterWorld, afterFaults := state()
		if diff := worldStateDiff(t, beforeWorld, afterWorld); diff != "" {
			t.Errorf("%s /_fake/%s: a refused body (%d %s) changed the world (-before +after):\n%s", ep.method, ep.path, r.status, r.body, diff)
		}
		if beforeFaults != afterFaults {
			t.Errorf("%s /_fake/%s: a refused body changed the faults from %s to %s", ep.method, ep.path, beforeFaults, afterFaults)
		}
	})
}
