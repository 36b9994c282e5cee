package fake

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
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

// packageSources returns the package's Go files, tests left out, by name.
func packageSources(t *testing.T) map[string]string {
	t.Helper()
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
	return files
}

// TestWorldKnowsNoHTTP checks the package's own files: no world code names
// the server, a call or HTTP's types, and no world file imports HTTP.
func TestWorldKnowsNoHTTP(t *testing.T) {
	t.Parallel()
	for _, v := range layerViolations(t, packageSources(t)) {
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

// Each group of the fake keeps its code in files named group first (see
// CONTRIBUTING.md, "Layout"): <group>.go, <group>_jobs.go for its jobs and
// <group>_snap.go for its snapshot records. The snapshot's shared code
// stays in the files named for it.

// snapshotShared are the only files named snapshot*.go: the snapshot's
// root and loader, the decoder's cost check, and the saver.
var snapshotShared = []string{"snapshot.go", "snapshot_decode.go", "snapshot_saver.go"}

// jobLayoutViolations returns, for the Go source files given (name to
// text), every job kind (a type with a run(w *world) method) whose struct,
// run, save, keep and loader (its function in jobLoaders, found through
// the kind its save gives) are not declared in one file named
// <group>_jobs.go, and every file named snapshot_<x>.go other than the
// shared ones, as "file: what".
func jobLayoutViolations(t *testing.T, files map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var out []string
	typeFile := map[string]string{}              // type -> file of its declaration
	methodFile := map[string]map[string]string{} // type -> method -> file
	funcFile := map[string]string{}              // function -> file
	saveKind := map[string]string{}              // type -> the kind its save gives
	loaders := map[string]string{}               // kind -> loader function, from jobLoaders
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		if strings.HasPrefix(name, "snapshot_") && !slices.Contains(snapshotShared, name) {
			out = append(out, name+": a group's snapshot code belongs in <group>_snap.go; only "+
				strings.Join(snapshotShared, ", ")+" are named snapshot*.go")
		}
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						typeFile[s.Name.Name] = name
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if n.Name == "jobLoaders" && i < len(s.Values) {
								if cl, ok := s.Values[i].(*ast.CompositeLit); ok {
									for _, e := range cl.Elts {
										kv, ok := e.(*ast.KeyValueExpr)
										if !ok {
											continue
										}
										k, _ := kv.Key.(*ast.BasicLit)
										v, _ := kv.Value.(*ast.Ident)
										if k != nil && v != nil {
											kind, _ := strconv.Unquote(k.Value)
											loaders[kind] = v.Name
										}
									}
								}
							}
						}
					}
				}
			case *ast.FuncDecl:
				recv := recvType(d)
				if recv == "" {
					funcFile[d.Name.Name] = name
					continue
				}
				if methodFile[recv] == nil {
					methodFile[recv] = map[string]string{}
				}
				if d.Name.Name == "run" && isWorldDecl(d) {
					methodFile[recv]["run"] = name
				} else if d.Name.Name != "run" {
					methodFile[recv][d.Name.Name] = name
				}
				if d.Name.Name == "save" && d.Body != nil {
					ast.Inspect(d.Body, func(n ast.Node) bool {
						kv, ok := n.(*ast.KeyValueExpr)
						if !ok {
							return true
						}
						if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Kind" {
							if lit, ok := kv.Value.(*ast.BasicLit); ok {
								saveKind[recv], _ = strconv.Unquote(lit.Value)
							}
						}
						return true
					})
				}
			}
		}
	}
	kinds := slices.Sorted(func(yield func(string) bool) {
		for typ, m := range methodFile {
			if m["run"] != "" && !yield(typ) {
				return
			}
		}
	})
	for _, typ := range kinds {
		home := typeFile[typ]
		if !strings.HasSuffix(home, "_jobs.go") {
			out = append(out, home+": job "+typ+" is declared outside a <group>_jobs.go file")
		}
		parts := []struct{ what, file string }{
			{"run", methodFile[typ]["run"]}, {"save", methodFile[typ]["save"]}, {"keep", methodFile[typ]["keep"]},
		}
		kind := saveKind[typ]
		loader := loaders[kind]
		switch {
		case kind == "":
			out = append(out, home+": job "+typ+" has no save giving its Kind")
		case loader == "":
			out = append(out, home+": job "+typ+" (kind "+kind+") has no loader in jobLoaders")
		default:
			parts = append(parts, struct{ what, file string }{"loader " + loader, funcFile[loader]})
		}
		for _, p := range parts {
			if p.file != home {
				out = append(out, home+": job "+typ+"'s "+p.what+" is in "+strconv.Quote(p.file)+", not beside its struct")
			}
		}
	}
	return out
}

// recvType is the name of a method's receiver type, or "" for a function.
func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestJobsAndSnapshotsHaveOneHome checks the package's own files: each job
// kind lives whole in its group's _jobs.go, and no group's snapshot code
// sits in a snapshot_<x>.go.
func TestJobsAndSnapshotsHaveOneHome(t *testing.T) {
	t.Parallel()
	for _, v := range jobLayoutViolations(t, packageSources(t)) {
		t.Error(v)
	}
}

// TestJobLayoutViolationsFound checks that the layout check finds what it
// must: each case is a few small files that break, or keep, the rules.
func TestJobLayoutViolationsFound(t *testing.T) {
	t.Parallel()
	const (
		loaders = "package fake\nvar jobLoaders = map[string]func(ld *loader, js jobSnap) (job, error){\"x.go\": loadXJob}\n"
		typ     = "type xJob struct{}\n"
		run     = "func (xJob) run(w *world) {}\n"
		save    = "func (xJob) save() jobSnap { return jobSnap{Kind: \"x.go\"} }\n"
		keep    = "func (xJob) keep(*saver) bool { return true }\n"
		load    = "func loadXJob(*loader, jobSnap) (job, error) { return xJob{}, nil }\n"
		whole   = "package fake\n" + typ + run + save + keep + load
	)
	tests := []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"job whole in its group's jobs file", map[string]string{"snapshot.go": loaders, "x_jobs.go": whole}, 0},
		{"job whole outside a jobs file", map[string]string{"snapshot.go": loaders, "x.go": whole}, 1},
		{"run in the group's file", map[string]string{
			"snapshot.go": loaders, "x.go": "package fake\n" + run,
			"x_jobs.go": "package fake\n" + typ + save + keep + load,
		}, 1},
		{"loader with the snapshot's root", map[string]string{
			"snapshot.go": loaders + load, "x_jobs.go": "package fake\n" + typ + run + save + keep,
		}, 1},
		{"save and keep apart", map[string]string{
			"snapshot.go": loaders, "x_jobs.go": "package fake\n" + typ + run + load,
			"snapshot_saver.go": "package fake\n" + save + keep,
		}, 2},
		{"no loader for the kind", map[string]string{
			"snapshot.go": "package fake\nvar jobLoaders = map[string]func(ld *loader, js jobSnap) (job, error){}\n",
			"x_jobs.go":   "package fake\n" + typ + run + save + keep,
		}, 1},
		{"a group's snapshot file", map[string]string{"snapshot_x.go": "package fake\n", "snapshot_decode.go": "package fake\n", "snapshot_saver.go": "package fake\n"}, 1},
		{"a group's _snap file", map[string]string{"x_snap.go": "package fake\n", "snapshot.go": "package fake\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := jobLayoutViolations(t, tt.files)
			if len(got) != tt.want {
				t.Errorf("violations = %q, want %d", got, tt.want)
			}
		})
	}
}

// One home per concept: a resource group's file holds its own routes,
// handlers, records, rules and rendering, and what several groups use
// lives in a file named for what it does (render.go, validate.go,
// pagination.go, sizecatalog.go, ...), never in one group's file. The rule
// the check below holds the package's files to:
//
//   - A group is a resource group: a file that declares its routes (a
//     function xRoutes() []route, which routes.go adds to the table),
//     with the files named after it with _jobs.go and _snap.go. A file's
//     group is its name up to _jobs.go, _snap.go or .go; a file whose
//     group declares no routes is shared (routes.go, render.go, seed.go,
//     snapshot.go, ...): it may use any group's declarations, as the
//     route table and the snapshot do, and any group may use its own.
//   - A function declared in one group's files, or a method declared there
//     on a type that no group declares, is that group's own: a file of
//     another group that names it is a violation.
//   - A group lends its types: its records (dbRec, branchRec, ...), their
//     stores and its jobs, with their methods wherever they are declared
//     (dbRec.branch lives in branches.go); so does a shared file its
//     records (a type named ...Rec: tokenRec in auth.go, with the grants'
//     methods in servicetokens.go). Methods of *world are the
//     world's entry points, and methods of *call resolve a request's path
//     values (c.keyspace(), c.mysqlBranch()); any group may call both.
//   - A record's snapshot holds its children's (a branch's, its keyspaces'
//     and passwords'), so what one group's _snap.go declares another
//     group's _snap.go may use: the snapshot's own entry points.

// groupOf is the group of a file: its name up to _jobs.go, _snap.go or .go.
func groupOf(file string) string {
	for _, suffix := range []string{"_jobs.go", "_snap.go", ".go"} {
		if g, ok := strings.CutSuffix(file, suffix); ok {
			return g
		}
	}
	return file
}

// majorVersion matches the last element of a versioned import path
// (math/rand/v2), which is not the package's name.
var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// stubImporter gives every import an empty package, so that type-checking
// the package's own files needs no other package: what the files name of
// their imports stays unresolved (those errors are ignored), while every
// use of the package's own functions and methods is resolved.
type stubImporter map[string]*types.Package

func (s stubImporter) Import(path string) (*types.Package, error) {
	if p := s[path]; p != nil {
		return p, nil
	}
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if majorVersion.MatchString(name) && len(elems) > 1 {
		name = elems[len(elems)-2]
	}
	if path == "github.com/dbplatform/platform-go" {
		name = "platform"
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	s[path] = p
	return p, nil
}

// groupViolations returns, for the Go source files given (name to text, of
// one package), every use from one group's file of what another group
// keeps for itself (see the rule above), as "file:line: what".
func groupViolations(t *testing.T, files map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	var parsed []*ast.File
	routed := map[string]bool{} // the groups that declare routes
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasSuffix(fd.Name.Name, "Routes") ||
				fd.Type.Results.NumFields() != 1 {
				continue
			}
			if at, ok := fd.Type.Results.List[0].Type.(*ast.ArrayType); ok && at.Len == nil {
				if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "route" {
					routed[groupOf(name)] = true
				}
			}
		}
	}
	group := func(p token.Pos) string {
		if g := groupOf(fset.Position(p).Filename); routed[g] {
			return g
		}
		return "" // a shared file
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: stubImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("fake", fset, parsed, info)
	var out []string
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() != pkg {
			continue
		}
		owner, user := group(fn.Pos()), group(id.Pos())
		if owner == "" || user == "" || owner == user {
			continue
		}
		if strings.HasSuffix(fset.Position(fn.Pos()).Filename, "_snap.go") &&
			strings.HasSuffix(fset.Position(id.Pos()).Filename, "_snap.go") {
			continue // a snapshot holds its children's: see the rule
		}
		what := fn.Name()
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
			rt := recv.Type()
			if p, ok := rt.(*types.Pointer); ok {
				rt = p.Elem()
			}
			named, ok := rt.(*types.Named)
			if !ok {
				continue // an interface's method
			}
			tn := named.Origin().Obj()
			if tn.Name() == "world" || tn.Name() == "call" || strings.HasSuffix(tn.Name(), "Rec") || group(tn.Pos()) != "" {
				continue // lent: see the rule
			}
			what = tn.Name() + "." + what
		}
		pos := fset.Position(id.Pos())
		out = append(out, pos.Filename+":"+strconv.Itoa(pos.Line)+": "+what+" of group "+owner+" used by group "+user)
	}
	slices.Sort(out)
	return out
}

// TestHelpersLiveInSharedFiles checks the package's own files: no group
// uses what another group keeps for itself.
func TestHelpersLiveInSharedFiles(t *testing.T) {
	t.Parallel()
	for _, v := range groupViolations(t, packageSources(t)) {
		t.Error(v, "(move it to a file named for what it does)")
	}
}

// TestGroupViolationsFound checks that the check finds what it must: each
// case is a few small files that break, or keep, the rule.
func TestGroupViolationsFound(t *testing.T) {
	t.Parallel()
	const (
		routesA = "package fake\ntype route struct{}\nfunc aRoutes() []route { return nil }\n"
		routesB = "package fake\nfunc bRoutes() []route { return nil }\n"
	)
	tests := []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"a group's helper used by another group", map[string]string{
			"a.go": routesA + "func helper() {}\n",
			"b.go": routesB + "func h() { helper() }\n",
		}, 1},
		{"a group's helper used from the other's jobs and snapshot files", map[string]string{
			"a.go":      routesA + "func helper() {}\n",
			"b.go":      routesB,
			"b_jobs.go": "package fake\nfunc j() { helper() }\n",
			"b_snap.go": "package fake\nvar s = helper\n",
		}, 2},
		{"a group's method on a shared type", map[string]string{
			"a.go":      routesA + "func (s *Server) helper() {}\n",
			"server.go": "package fake\ntype Server struct{}\n",
			"b.go":      routesB + "func h(s *Server) { s.helper() }\n",
		}, 1},
		{"a helper used by its own group's jobs and snapshot files", map[string]string{
			"a.go":      routesA + "func helper() {}\n",
			"a_jobs.go": "package fake\nfunc j() { helper() }\n",
			"a_snap.go": "package fake\nfunc s() { helper() }\n",
		}, 0},
		{"a shared file's helper used by every group", map[string]string{
			"a.go":      routesA + "func h() { render() }\n",
			"b.go":      routesB + "func h2() { render() }\n",
			"render.go": "package fake\nfunc render() {}\n",
		}, 0},
		{"a shared file using a group's helper", map[string]string{
			"a.go":      routesA + "func helper() {}\n",
			"routes.go": "package fake\nvar table = aRoutes\nfunc f() { helper() }\n",
		}, 0},
		{"a record lent with its methods, wherever declared", map[string]string{
			"a.go": routesA + "type aRec struct{}\nfunc (r *aRec) get() {}\n",
			"b.go": routesB + "func (r *aRec) more() {}\nfunc h(r *aRec) { r.get(); r.more() }\n",
			"c.go": "package fake\nfunc cRoutes() []route { return nil }\nfunc h3(r *aRec) { r.more() }\n",
		}, 0},
		{"a snapshot saving its children's", map[string]string{
			"a.go":      routesA,
			"a_snap.go": "package fake\nfunc saveA() {}\n",
			"b.go":      routesB + "func h() { saveA() }\n",
			"b_snap.go": "package fake\nfunc saveB() { saveA() }\n",
		}, 1},
		{"a shared record's methods declared in a group", map[string]string{
			"auth.go": "package fake\ntype tokenRec struct{}\n",
			"a.go":    routesA + "func (t *tokenRec) grant() {}\n",
			"b.go":    routesB + "func h(t *tokenRec) { t.grant() }\n",
		}, 0},
		{"the world's and a call's methods", map[string]string{
			"store.go":  "package fake\ntype world struct{}\ntype call struct{ w *world }\n",
			"a.go":      routesA + "func (w *world) act() {}\nfunc (c *call) thing() {}\n",
			"b.go":      routesB + "func h(c *call) { c.w.act(); c.thing() }\n",
			"b_jobs.go": "package fake\nfunc j(w *world) { w.act() }\n",
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := groupViolations(t, tt.files)
			if len(got) != tt.want {
				t.Errorf("violations = %q, want %d", got, tt.want)
			}
		})
	}
}
