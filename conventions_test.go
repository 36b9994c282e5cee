package platform_test

// This file checks conventions of CONTRIBUTING.md over the module's source:
// every exported name has a doc comment that starts with the name, and every
// row of fake/operations.tsv is the "// API:" line of exactly one SDK method.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// operationRows are the rows of fake/operations.tsv, split into columns,
// without the header.
func operationRows(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("fake", "operations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i > 0 {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

// conventionFile is a parsed non-test source file of a library package.
type conventionFile struct {
	path string
	file *ast.File
}

// conventionFiles returns the non-test Go files of the library packages
// under dir (the module root when "."), parsed with comments:
// package main (commands and examples), testdata, hidden directories and
// nested modules are left out. The module is parsed once, for every test
// that reads it (they only read the syntax trees), into the FileSet
// returned.
func conventionFiles(t *testing.T, dir string) (*token.FileSet, []conventionFile) {
	t.Helper()
	conventionParse.once.Do(func() {
		conventionParse.fset = token.NewFileSet()
		conventionParse.files, conventionParse.err = parseLibraryFiles(conventionParse.fset, ".")
	})
	if conventionParse.err != nil {
		t.Fatal(conventionParse.err)
	}
	var files []conventionFile
	for _, cf := range conventionParse.files {
		if dir == "." || strings.HasPrefix(cf.path, dir+string(filepath.Separator)) {
			files = append(files, cf)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no Go files under %s", dir)
	}
	return conventionParse.fset, files
}

// conventionParse is the module's parse that conventionFiles makes once.
var conventionParse struct {
	once  sync.Once
	fset  *token.FileSet
	files []conventionFile
	err   error
}

// parseLibraryFiles parses the files conventionFiles returns, under dir.
func parseLibraryFiles(fset *token.FileSet, dir string) ([]conventionFile, error) {
	var files []conventionFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == dir {
				return nil
			}
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name != "main" {
			files = append(files, conventionFile{path, f})
		}
		return nil
	})
	return files, err
}

// receiverName is the name of a method's receiver type ("" for a function).
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr: // a generic receiver: Page[T]
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// funcTitle names a function or method as a message shows it: "Name" or
// "Recv.Name".
func funcTitle(fn *ast.FuncDecl) string {
	if r := receiverName(fn); r != "" {
		return r + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// startsWithName reports whether doc begins with name as a word, the way
// Go doc comments do ("Get returns ...", "Page is ..."); a type's may put an
// article first ("A Page is ...").
func startsWithName(doc, name string, article bool) bool {
	if article {
		for _, a := range []string{"A ", "An ", "The "} {
			if rest, ok := strings.CutPrefix(doc, a); ok {
				doc = rest
				break
			}
		}
	}
	rest, ok := strings.CutPrefix(doc, name)
	return ok && (rest == "" || !isIdentByte(rest[0]))
}

// isIdentByte reports whether b can continue a Go identifier.
func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// TestExportedNamesHaveDocs checks that every exported name of the library
// packages has a doc comment: functions, methods of exported types, types,
// their exported fields other than wire fields, interface methods, constants
// and variables (a comment on a const or var group documents its members).
// Function, method and type docs must start with the name.
func TestExportedNamesHaveDocs(t *testing.T) {
	t.Parallel()
	fset, files := conventionFiles(t, ".")
	for _, cf := range files {
		missing := func(pos token.Pos, what, title string) {
			_, name, _ := strings.Cut(title, ".") // a method or field: Recv.Name
			if name == "" {
				name = title
			}
			t.Errorf("%s: exported %s %s has no doc comment: add one starting with %q", fset.Position(pos), what, title, name)
		}
		for _, decl := range cf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if r := receiverName(d); r != "" && !ast.IsExported(r) {
					continue
				}
				what := "function"
				if d.Recv != nil {
					what = "method"
				}
				switch {
				case d.Doc == nil:
					missing(d.Pos(), what, funcTitle(d))
				case !startsWithName(d.Doc.Text(), d.Name.Name, false):
					t.Errorf("%s: doc of %s %s starts %q: start it with %q", fset.Position(d.Doc.Pos()), what, funcTitle(d), firstWords(d.Doc.Text()), d.Name.Name)
				}
			case *ast.GenDecl:
				checkGenDeclDocs(t, fset, d, missing)
			}
		}
	}
}

// checkGenDeclDocs checks the type, const and var specs of one declaration.
func checkGenDeclDocs(t *testing.T, fset *token.FileSet, d *ast.GenDecl, missing func(token.Pos, string, string)) {
	t.Helper()
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			doc := s.Doc
			if doc == nil && !d.Lparen.IsValid() {
				doc = d.Doc
			}
			switch {
			case doc == nil:
				missing(s.Pos(), "type", s.Name.Name)
			case !startsWithName(doc.Text(), s.Name.Name, true):
				t.Errorf("%s: doc of type %s starts %q: start it with %q", fset.Position(doc.Pos()), s.Name.Name, firstWords(doc.Text()), s.Name.Name)
			}
			checkMemberDocs(s, missing)
		case *ast.ValueSpec:
			if s.Doc != nil || d.Doc != nil || s.Comment != nil {
				continue
			}
			what := map[token.Token]string{token.CONST: "const", token.VAR: "var"}[d.Tok]
			for _, n := range s.Names {
				if n.IsExported() {
					missing(n.Pos(), what, n.Name)
				}
			}
		}
	}
}

// checkMemberDocs checks the exported fields of a struct type and the
// methods of an interface type; a line comment after a field counts. A wire
// field (one with a json or url tag) mirrors the API's schema, which
// documents it, and need not have its own comment: the other fields are
// the Go API's own (options, configuration, records of the fake).
func checkMemberDocs(s *ast.TypeSpec, missing func(token.Pos, string, string)) {
	var (
		list *ast.FieldList
		what string
	)
	switch typ := s.Type.(type) {
	case *ast.StructType:
		list, what = typ.Fields, "field"
	case *ast.InterfaceType:
		list, what = typ.Methods, "interface method"
	default:
		return
	}
	for _, f := range list.List {
		if f.Doc != nil || f.Comment != nil || isWireField(f) {
			continue
		}
		for _, n := range f.Names { // embedded fields have none
			if n.IsExported() {
				missing(n.Pos(), what, s.Name.Name+"."+n.Name)
			}
		}
	}
}

// isWireField reports whether a struct field has a json or url tag.
func isWireField(f *ast.Field) bool {
	if f.Tag == nil {
		return false
	}
	tag, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return false
	}
	_, json := reflect.StructTag(tag).Lookup("json")
	_, url := reflect.StructTag(tag).Lookup("url")
	return json || url
}

// firstWords is the start of a doc comment, for a message.
func firstWords(doc string) string {
	words := strings.Fields(doc)
	return strings.Join(words[:min(len(words), 4)], " ")
}

// apiLine is the last line of the doc comment of an SDK method that calls
// an operation: "// API: METHOD PATH", PATH starting with "/". The OAuth
// server's rows of fake/operations.tsv write their paths under
// "{auth_url}"; their API lines leave that prefix out ("/oauth/token"), as
// every API line names a path on the host it is sent to.
var apiLine = regexp.MustCompile(`^// API: ([A-Z]+) (/\S*)$`)

// TestAPIDocLines checks the SDK's "// API:" doc lines against
// fake/operations.tsv: every row is the last line of the doc comment of
// exactly one SDK method (in package oauth for the OAuth server's
// {auth_url} rows, named without that prefix, in package platform for the
// others), and every such line names a row.
func TestAPIDocLines(t *testing.T) {
	t.Parallel()
	type row struct {
		name, pkg string
		line      int // in operations.tsv
	}
	rows := map[string]row{} // "METHOD PATH" -> row
	var order []string
	for i, r := range operationRows(t) {
		pkg := "platform"
		path, ok := strings.CutPrefix(r[2], "{auth_url}")
		if ok {
			pkg = "oauth"
		}
		op := r[1] + " " + path
		rows[op] = row{r[3], pkg, i + 2} // after the header, from 1
		order = append(order, op)
	}
	var fset *token.FileSet
	var files []conventionFile
	for _, dir := range []string{".", "oauth"} {
		var under []conventionFile
		fset, under = conventionFiles(t, dir)
		for _, cf := range under {
			if filepath.Dir(cf.path) == dir {
				files = append(files, cf)
			}
		}
	}
	documented := map[string][]string{} // "METHOD PATH" -> "file:line: Recv.Name"
	for _, cf := range files {
		onMethod := map[*ast.Comment]bool{}
		for _, decl := range cf.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			last := fn.Doc.List[len(fn.Doc.List)-1]
			m := apiLine.FindStringSubmatch(last.Text)
			if m == nil {
				continue
			}
			onMethod[last] = true
			where := fset.Position(last.Pos()).String()
			op := m[1] + " " + m[2]
			r, ok := rows[op]
			switch {
			case fn.Recv == nil:
				t.Errorf("%s: %s is a function; an // API: line belongs to the SDK method that calls the operation", where, funcTitle(fn))
			case !ok:
				t.Errorf("%s: %s: // API: %s is not a row of fake/operations.tsv", where, funcTitle(fn), op)
			case r.pkg != cf.file.Name.Name:
				t.Errorf("%s: %s: // API: %s (%s) belongs in package %s", where, funcTitle(fn), op, r.name, r.pkg)
			}
			documented[op] = append(documented[op], where+": "+funcTitle(fn))
		}
		for _, cg := range cf.file.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "// API:") && !onMethod[c] {
					t.Errorf("%s: %q is not the last line of an SDK method's doc comment in the form \"// API: METHOD PATH\"", fset.Position(c.Pos()), c.Text)
				}
			}
		}
	}
	for _, op := range order {
		r := rows[op]
		switch by := documented[op]; len(by) {
		case 0:
			t.Errorf("fake/operations.tsv:%d: %s (%s) has no SDK method: end the doc comment of the method in package %s that calls it with \"// API: %s\"", r.line, r.name, op, r.pkg, op)
		case 1:
		default:
			t.Errorf("fake/operations.tsv:%d: %s (%s) is the // API: line of %d methods; keep it on the one that calls the operation only:\n\t%s", r.line, r.name, op, len(by), strings.Join(by, "\n\t"))
		}
	}
}

// rootFiles returns the non-test Go files of package platform (the module
// root), parsed (see conventionFiles).
func rootFiles(t *testing.T) (*token.FileSet, []conventionFile) {
	t.Helper()
	fset, all := conventionFiles(t, ".")
	var files []conventionFile
	for _, cf := range all {
		if filepath.Dir(cf.path) == "." {
			files = append(files, cf)
		}
	}
	return fset, files
}

// serviceMethods maps each type of files whose name ends in "Service" to
// the names of its methods.
func serviceMethods(files []conventionFile) map[string]map[string]bool {
	methods := map[string]map[string]bool{}
	for _, cf := range files {
		for _, decl := range cf.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if r := receiverName(fn); strings.HasSuffix(r, "Service") {
				if methods[r] == nil {
					methods[r] = map[string]bool{}
				}
				methods[r][fn.Name.Name] = true
			}
		}
	}
	return methods
}

// calledFunc is the name of the function or method a call calls ("" when it
// calls neither by name).
func calledFunc(call *ast.CallExpr) string {
	fun := call.Fun
	switch x := fun.(type) {
	case *ast.IndexExpr: // an explicit instantiation: f[T](...)
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := fun.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// waiterProblems checks the waiters of files against CONTRIBUTING.md: a
// service's waiter is named Wait<X> after the Get<X> it polls (or, for a
// record the API has no get for, the List<X>s it finds it in), polls
// through waitFor or waitForGet, and a waiter whose poll is one Get and
// whose condition reads only its body uses waitForGet.
func waiterProblems(fset *token.FileSet, files []conventionFile) []string {
	methods := serviceMethods(files)
	var problems []string
	for _, cf := range files {
		for _, decl := range cf.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			recv := receiverName(fn)
			if !strings.HasSuffix(recv, "Service") || !strings.HasPrefix(fn.Name.Name, "Wait") {
				continue
			}
			where := fset.Position(fn.Pos()).String() + ": " + funcTitle(fn)
			x := strings.TrimPrefix(fn.Name.Name, "Wait")
			if m := methods[recv]; !m["Get"+x] && !m["List"+x+"s"] && !m["List"+x+"es"] {
				problems = append(problems, where+": a waiter is named Wait<X> after the Get<X> it polls; "+recv+" has no Get"+x)
			}
			polls := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch calledFunc(call) {
				case "waitForGet":
					polls = true
				case "waitFor":
					polls = true
					if len(call.Args) > 3 && pollsOneGet(call.Args[2]) && !callsService(call.Args[3]) {
						problems = append(problems, where+": its poll is one Get: poll through waitForGet, so that a fake's client moves its clock to the state first")
					}
				}
				return true
			})
			if !polls {
				problems = append(problems, where+": a waiter polls through waitFor or waitForGet")
			}
		}
	}
	return problems
}

// callsService reports whether a waiter's condition calls a method of its
// service (the maintenance waiter lists windows): such a condition is no
// function of the polled body, so the waiter polls through waitFor.
func callsService(done ast.Expr) bool {
	found := false
	ast.Inspect(done, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "s" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// pollsOneGet reports whether a waiter's poll function is a literal whose
// body only returns what one Get... method answers.
func pollsOneGet(poll ast.Expr) bool {
	lit, ok := poll.(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	return ok && strings.HasPrefix(calledFunc(call), "Get")
}

// TestWaiterConventions checks the SDK's waiters (see waiterProblems), and
// that the check finds each kind of violation in a source made to break
// the rules.
func TestWaiterConventions(t *testing.T) {
	t.Parallel()
	const bad = `package platform
func (s *ThingsService) Get(ctx context.Context, p *GetThingParams) (*Thing, error) { return nil, nil }
func (s *ThingsService) WaitReady(ctx context.Context, p *GetThingParams) (*Thing, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Thing, error) { return s.Get(ctx, p) }, nil)
}
func (s *ThingsService) Wait(ctx context.Context, p *GetThingParams) (*Thing, error) {
	return waitFor(ctx, s.client, func(ctx context.Context) (*Thing, error) { return s.Get(ctx, p) }, nil)
}
func (s *ThingsService) WaitThing(ctx context.Context, p *GetThingParams) (*Thing, error) { return nil, nil }
`
	checkRule(t, waiterProblems, bad, "has no GetReady", "poll through waitForGet", "has no GetThing", "polls through waitFor or waitForGet")
}

// checkRule runs check, which finds the places that break a rule, over
// package platform, failing for each place it finds; then over bad, a
// source made to break the rule, failing unless it reports a problem for
// each of want, in order, each containing its text.
func checkRule(t *testing.T, check func(*token.FileSet, []conventionFile) []string, bad string, want ...string) {
	t.Helper()
	fset, files := rootFiles(t)
	for _, p := range check(fset, files) {
		t.Error(p)
	}
	f, err := parser.ParseFile(fset, "bad.go", bad, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := check(fset, []conventionFile{{"bad.go", f}})
	if len(got) != len(want) {
		t.Errorf("the check of a source that breaks the rules found %d problems, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if i >= len(got) || !strings.Contains(got[i], w) {
			t.Errorf("the check of a source that breaks the rules found %q, want problem %d to say %q", got, i, w)
		}
	}
}

// callHelperProblems finds service-local call helpers in files: an
// unexported method of a service, or an unexported function that takes a
// service. A service's methods call the shared helpers of platform.go and
// pagination.go (callOn, listOn, listPage, c.get, ...) themselves.
func callHelperProblems(fset *token.FileSet, files []conventionFile) []string {
	var problems []string
	for _, cf := range files {
		for _, decl := range cf.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Name.IsExported() {
				continue
			}
			where := fset.Position(fn.Pos()).String() + ": " + funcTitle(fn)
			if strings.HasSuffix(receiverName(fn), "Service") {
				problems = append(problems, where+": a service has no helper methods of its own; call callOn, listOn or the client's verbs")
				continue
			}
			for _, field := range fn.Type.Params.List {
				typ := field.Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if id, ok := typ.(*ast.Ident); ok && strings.HasSuffix(id.Name, "Service") {
					problems = append(problems, where+": takes a "+id.Name+": a service-local call helper; call callOn, listOn or the client's verbs")
				}
			}
		}
	}
	return problems
}

// TestNoServiceCallHelpers checks that no service has a call helper of its
// own (see callHelperProblems), and that the check finds both kinds in a
// source made to break the rule.
func TestNoServiceCallHelpers(t *testing.T) {
	t.Parallel()
	const bad = `package platform
func (s *ThingsService) thingCall(ctx context.Context, method string, p *ThingParams) (*Thing, error) { return nil, nil }
func thingPage[T any](ctx context.Context, s *ThingsService, p *ThingParams) (*Page[T], error) { return nil, nil }
`
	checkRule(t, callHelperProblems, bad, "ThingsService.thingCall: a service has no helper", "thingPage: takes a ThingsService")
}

// pathProblems finds paths checked or built other than the one way of
// CONTRIBUTING.md: path values are checked with required and escaped by
// pathf; params that name one resource do it in a check() error and a
// path(suffix string) string method (the resource interface), so a method
// named path has that form, beside a check; nothing else escapes a value
// (url.PathEscape is pathf's alone), formats a path (fmt.Sprintf) or
// appends a value to a "v1/..." literal.
func pathProblems(fset *token.FileSet, files []conventionFile) []string {
	type method struct {
		fn    *ast.FuncDecl
		where string
	}
	methods := map[string]map[string]method{} // receiver -> name -> method
	var problems []string
	isStringIdent := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "string" }
	isV1 := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		v, err := strconv.Unquote(lit.Value)
		return err == nil && strings.HasPrefix(v, "v1/")
	}
	for _, cf := range files {
		ast.Inspect(cf.file, func(n ast.Node) bool {
			where := ""
			if n != nil {
				where = fset.Position(n.Pos()).String()
			}
			switch x := n.(type) {
			case *ast.FuncDecl:
				if r := receiverName(x); r != "" {
					if methods[r] == nil {
						methods[r] = map[string]method{}
					}
					methods[r][x.Name.Name] = method{x, where + ": " + funcTitle(x)}
				}
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && pkg.Name == "url" && sel.Sel.Name == "PathEscape" && filepath.Base(cf.path) != "paths.go":
					problems = append(problems, where+": url.PathEscape outside pathf: build the path with pathf")
				case pkg != nil && pkg.Name == "fmt" && len(x.Args) > 0 && isV1(x.Args[0]):
					problems = append(problems, where+": a path formatted with fmt: build it with pathf, which escapes each value")
				}
			case *ast.BinaryExpr:
				if x.Op == token.ADD && (isV1(x.X) || isV1(x.Y)) {
					problems = append(problems, where+": a value appended to a \"v1/...\" literal: build the path with pathf, which escapes each value")
				}
			}
			return true
		})
	}
	for recv, ms := range methods {
		p, ok := ms["path"]
		if !ok {
			continue
		}
		ft := p.fn.Type
		if ft.Params.NumFields() != 1 || !isStringIdent(ft.Params.List[0].Type) || ft.Results.NumFields() != 1 || !isStringIdent(ft.Results.List[0].Type) {
			problems = append(problems, p.where+": a params type's path is path(suffix string) string; its path values are checked by its check() error")
		}
		c, ok := ms["check"]
		if !ok || c.fn.Type.Params.NumFields() != 0 || c.fn.Type.Results.NumFields() != 1 {
			problems = append(problems, p.where+": "+recv+" builds a path without a check() error for its path values")
		}
	}
	return problems
}

// TestPathsBuiltOneWay checks that paths are checked and built one way
// (see pathProblems), and that the check finds each kind of violation in a
// source made to break the rule.
func TestPathsBuiltOneWay(t *testing.T) {
	t.Parallel()
	const bad = `package platform
func (p *ThingParams) path() (string, error) { return "v1/things/" + url.PathEscape(p.ID), nil }
func thingPath(id string) string { return fmt.Sprintf("v1/things/%s", id) }
`
	checkRule(t, pathProblems, bad, "a value appended", "url.PathEscape outside pathf", "formatted with fmt", "path is path(suffix string) string", "without a check() error")
}

// TestTestBinariesEndThroughTestexit checks that every test package of
// the module (nested modules aside) has a TestMain that ends through
// testexit.Main, so that no test binary pauses at exit under the race
// detector (see internal/testexit).
func TestTestBinariesEndThroughTestexit(t *testing.T) {
	t.Parallel()
	tested := map[string]bool{} // directory -> whether a TestMain calls testexit.Main
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		tested[dir] = tested[dir] || bytes.Contains(src, []byte("func TestMain(m *testing.M)")) && bytes.Contains(src, []byte("testexit.Main(m)"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tested) < 2 {
		t.Fatalf("found %d test packages; the walk is broken", len(tested))
	}
	for dir, ok := range tested {
		if !ok {
			t.Errorf("%s: no TestMain calling testexit.Main (add a testmain_test.go as the other packages have)", dir)
		}
	}
}

// unmarshalerProblems finds the UnmarshalJSON methods of files that do not
// begin by refusing a nil receiver (`if err := nilTarget(r); err != nil`),
// as CONTRIBUTING.md asks, and returns with them the names of the types
// that have one.
func unmarshalerProblems(fset *token.FileSet, files []conventionFile) (problems, types []string) {
	for _, cf := range files {
		for _, decl := range cf.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "UnmarshalJSON" || fn.Recv == nil || fn.Body == nil {
				continue
			}
			types = append(types, receiverName(fn))
			if !beginsWithNilTarget(fn) {
				problems = append(problems, fmt.Sprintf("%s: %s does not begin with nilTarget(%s)",
					fset.Position(fn.Pos()), funcTitle(fn), receiverIdent(fn)))
			}
		}
	}
	return problems, types
}

// beginsWithNilTarget reports whether fn's first statement is
// `if err := nilTarget(<fn's receiver>); err != nil { return err }`.
func beginsWithNilTarget(fn *ast.FuncDecl) bool {
	if len(fn.Body.List) == 0 {
		return false
	}
	stmt, ok := fn.Body.List[0].(*ast.IfStmt)
	if !ok || stmt.Init == nil {
		return false
	}
	assign, ok := stmt.Init.(*ast.AssignStmt)
	if !ok || len(assign.Rhs) != 1 {
		return false
	}
	call, ok := assign.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	callee, ok1 := call.Fun.(*ast.Ident)
	arg, ok2 := call.Args[0].(*ast.Ident)
	return ok1 && ok2 && callee.Name == "nilTarget" && arg.Name == receiverIdent(fn)
}

// receiverIdent is the name fn gives its receiver.
func receiverIdent(fn *ast.FuncDecl) string {
	if names := fn.Recv.List[0].Names; len(names) > 0 {
		return names[0].Name
	}
	return "_"
}

// TestUnmarshalersRefuseNil checks that every UnmarshalJSON method of the
// SDK begins with nilTarget, that the check finds one that does not, and
// that nilEmbedded (TestUnmarshalIntoNilEmbedded) lists every type with
// such a method.
func TestUnmarshalersRefuseNil(t *testing.T) {
	t.Parallel()
	const bad = `package platform
func (t *Thing) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &t.v) }
`
	checkRule(t, func(fset *token.FileSet, files []conventionFile) []string {
		problems, _ := unmarshalerProblems(fset, files)
		return problems
	}, bad, "Thing.UnmarshalJSON does not begin with nilTarget(t)")

	fset, files := rootFiles(t)
	_, types := unmarshalerProblems(fset, files)
	var listed []string
	for _, v := range nilEmbedded {
		listed = append(listed, reflect.TypeOf(v).Elem().Field(0).Type.Elem().Name())
	}
	slices.Sort(types)
	slices.Sort(listed)
	if diff := cmp.Diff(types, listed); diff != "" {
		t.Errorf("the types with an UnmarshalJSON method (-want) against nilEmbedded's (+got):\n%s", diff)
	}
}
