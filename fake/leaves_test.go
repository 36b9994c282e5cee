package fake_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLeafPackagesImportNoFake: the packages under fake/internal know
// nothing of the fake; neither they nor their tests import it.
func TestLeafPackagesImportNoFake(t *testing.T) {
	t.Parallel()
	const fakePath = "github.com/dbplatform/platform-go/fake"
	dirs, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		pkg, err := build.ImportDir(filepath.Join("internal", d.Name()), 0)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, imp := range slices.Concat(pkg.Imports, pkg.TestImports, pkg.XTestImports) {
			if imp == fakePath || strings.HasPrefix(imp, fakePath+"/") && !strings.HasPrefix(imp, fakePath+"/internal/") {
				t.Errorf("fake/internal/%s imports %s: a leaf package imports nothing of the fake", d.Name(), imp)
			}
		}
	}
	if n == 0 {
		t.Error("no package found under fake/internal")
	}
}
