package ordered

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStoreFindsByIDAndLists(t *testing.T) {
	t.Parallel()
	var s Store[*rec]
	if s.Get("a") != nil || s.Has("a") || s.Len() != 0 {
		t.Fatal("a zero store finds a record")
	}
	a, b := &rec{"a", 2}, &rec{"b", 1}
	s.Add(a)
	s.Add(b)
	if s.Get("a") != a || !s.Has("b") {
		t.Error("Get/Has do not find an added record")
	}
	if diff := cmp.Diff([]string{"b", "a"}, ids(s.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	s.Remove(b)
	if s.Has("b") || s.Len() != 1 || s.Index().Len() != 1 {
		t.Error("Remove leaves the record by ID or in the list")
	}
}
