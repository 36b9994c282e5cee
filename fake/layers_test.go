package fake

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fake has two layers in one package (see CONTRIBUTING.md, "Layers of
// the fake"): the world, which holds the records, their rules and state
// machines and is what jobs run against, and above it the server with its
// handlers, which parse a request, call the world and render. The world
// knows nothing of HTTP or of the server that holds it.

// worldForbidden are the names no world code may use: the server, a
// handler's call, and HTTP's request and response.
var worldForbidden = []string{"Server", "call", "ResponseWriter", "Request", "recorder"}

// worldImportsForbidden are the packages no world file may import.
var worldImportsForbidden = []string{"net/http", "net/http/httptest", "net/url", "html/template"}

// isWorldFile reports whether a file of the package is wholly of the
// world layer: a group's jobs (<group>_jobs.go), its snapshot records
// (<group>_snap.go), or the world's shared files.
func isWorldFile(name string) bool {
	return strings.HasSuffix(name, "_jobs.go") || strings.HasSuffix(name, "_snap.go") ||
		slices.Contains([]string{"store.go", "clock.go", "failnext.go", "index.go"}, name)
}

// isWorldDecl reports whether a function is world code wherever it lives:
// a method of *world, or a job's run.
func isWorldDecl(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	if st, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
		if id, ok := st.X.(*ast.Ident); ok && id.Name == "world" {
			return true
		}
	}
	if fd.Name.Name == "run" && fd.Type.Params.NumFields() == 1 {
		if st, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := st.X.(*ast.Ident); ok && id.Name == "world" {
				return true
			}
		}
	}
	return false
}

// layerViolations returns, for the Go source files given (name to text),
// every use of a forbidden name in world code and every forbidden import
// of a world file, as "file:line: what".
func layerViolations(t *testing.T, files map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var out []string
	report := func(p token.Pos, what string) {
		pos := fset.Position(p)
		out = append(out, pos.Filename+":"+strconv.Itoa(pos.Line)+": "+what)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		whole := isWorldFile(name)
		if whole {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if slices.Contains(worldImportsForbidden, path) {
					report(imp.Pos(), "world file imports "+path)
				}
			}
		}
		check := func(n ast.Node, where string) {
			ast.Inspect(n, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && slices.Contains(worldForbidden, id.Name) {
					report(id.Pos(), where+" names "+id.Name)
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch {
			case whole:
				check(d, "world file")
			default:
				if fd, ok := d.(*ast.FuncDecl); ok && isWorldDecl(fd) {
					check(fd, "world code "+fd.Name.Name)
				}
			}
		}
	}
	return out
}

// TestWorldKnowsNoHTTP checks the package's own files: no world code names
// the server, a call or HTTP's types, and no world file imports HTTP.
func TestWorldKnowsNoHTTP(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	for _, v := range layerViolations(t, files) {
		t.Error(v)
	}
}

// TestLayerViolationsFound checks that the layering check finds what it
// must: each case is one small file that breaks, or keeps, the rules.
func TestLayerViolationsFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src string
		want            int
	}{
		{"world method naming the server", "x.go", "package fake\nfunc (w *world) f(s *Server) {}\n", 1},
		{"world method using a call", "x.go", "package fake\nfunc (w *world) f() { var c *call; _ = c }\n", 1},
		{"job run writing a response", "x.go", "package fake\nimport \"net/http\"\ntype j struct{}\nfunc (j) run(w *world) { var rw http.ResponseWriter; _ = rw }\n", 1},
		{"jobs file importing net/http", "x_jobs.go", "package fake\nimport _ \"net/http\"\n", 1},
		{"snapshot file naming the server", "x_snap.go", "package fake\nfunc load(s *Server) {}\n", 1},
		{"handler may use both", "x.go", "package fake\nimport \"net/http\"\nfunc h(c *call, rw http.ResponseWriter) { c.w.f() }\n", 0},
		{"world method of records only", "x.go", "package fake\nfunc (w *world) f(b *branchRec) { w.clock.Now() }\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := layerViolations(t, map[string]string{tt.file: tt.src})
			if len(got) != tt.want {
				t.Errorf("violations = %q, want %d", got, tt.want)
			}
		})
	}
}
