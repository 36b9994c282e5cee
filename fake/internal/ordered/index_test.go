package ordered

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type rec struct {
	id string
	at int
}

func (r *rec) ListKey() Key { return Key{At: time.Unix(int64(r.at), 0), ID: r.id} }

func ids(rs []*rec) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.id)
	}
	return out
}

// five returns an index of records a to e, added out of order; b and c
// share a creation time, so their IDs order them.
func five() (*Index[*rec], map[string]*rec) {
	rs := map[string]*rec{"a": {"a", 1}, "b": {"b", 2}, "c": {"c", 2}, "d": {"d", 3}, "e": {"e", 4}}
	x := &Index[*rec]{}
	for _, id := range []string{"d", "a", "c", "e", "b"} {
		x.Add(rs[id])
	}
	return x, rs
}

func TestIndexKeepsListOrder(t *testing.T) {
	t.Parallel()
	x, rs := five()
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e"}, ids(x.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	x.Remove(rs["c"])
	x.Remove(&rec{"zz", 9}) // absent: no change
	if diff := cmp.Diff([]string{"a", "b", "d", "e"}, ids(x.All())); diff != "" {
		t.Errorf("after Remove (-want +got):\n%s", diff)
	}
	if x.Len() != 4 {
		t.Errorf("Len = %d, want 4", x.Len())
	}
	if i, ok := x.Find(rs["d"].ListKey()); !ok || i != 2 {
		t.Errorf("Find(d) = %d, %v, want 2, true", i, ok)
	}
}

func TestIndexPages(t *testing.T) {
	t.Parallel()
	x, _ := five()
	notB := func(r *rec) bool { return r.id != "b" }
	for _, tc := range []struct {
		name      string
		p, per    int
		desc      bool
		keep      func(*rec) bool
		want      []string
		wantTotal int
	}{
		{name: "first page", p: 1, per: 2, want: []string{"a", "b"}, wantTotal: 5},
		{name: "last page, short", p: 3, per: 2, want: []string{"e"}, wantTotal: 5},
		{name: "beyond the end", p: 4, per: 2, want: []string{}, wantTotal: 5},
		{name: "descending", p: 1, per: 2, desc: true, want: []string{"e", "d"}, wantTotal: 5},
		{name: "descending, last page", p: 3, per: 2, desc: true, want: []string{"a"}, wantTotal: 5},
		{name: "filtered", p: 1, per: 2, keep: notB, want: []string{"a", "c"}, wantTotal: 4},
		{name: "filtered, descending, second page", p: 2, per: 2, desc: true, keep: notB, want: []string{"c", "a"}, wantTotal: 4},
		{name: "filtered, beyond the end", p: 3, per: 2, keep: notB, want: []string{}, wantTotal: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []*rec
			var total int
			if tc.keep == nil {
				got, total = x.Window(tc.p, tc.per, tc.desc)
			} else {
				got, total = x.Filter(tc.p, tc.per, tc.desc, tc.keep)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" || total != tc.wantTotal {
				t.Errorf("page = %v (total %d), want total %d (-want +got):\n%s", ids(got), total, tc.wantTotal, diff)
			}
		})
	}
}

func TestCutAndSpan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p, per, n      int
		desc           bool
		wantLo, wantHi int
	}{
		{p: 1, per: 10, n: 25, wantLo: 0, wantHi: 10},
		{p: 3, per: 10, n: 25, wantLo: 20, wantHi: 25},
		{p: 4, per: 10, n: 25, wantLo: 25, wantHi: 25},
		{p: 1, per: 10, n: 25, desc: true, wantLo: 15, wantHi: 25},
		{p: 3, per: 10, n: 25, desc: true, wantLo: 0, wantHi: 5},
		{p: 4, per: 10, n: 25, desc: true, wantLo: 0, wantHi: 0},
	} {
		lo, hi := Span(tc.p, tc.per, tc.n, tc.desc)
		if lo != tc.wantLo || hi != tc.wantHi {
			t.Errorf("Span(%d, %d, %d, %v) = [%d, %d), want [%d, %d)", tc.p, tc.per, tc.n, tc.desc, lo, hi, tc.wantLo, tc.wantHi)
		}
	}
}
