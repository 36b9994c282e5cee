// Command clientgen writes internal/apischema/client.json: what the live
// service's official Go client decodes, as facts. For each response type
// the client reads, the JSON names of its fields and their kinds (integer,
// number, string, boolean, object, array), nested types resolved; and for
// each operation of the schema file (operations.tsv's names), the types its
// success body is decoded into. Type names are operation names (a type is
// named for the first operation, in name order, that answers into it), so
// that nothing of the client's own naming is kept, and the output is
// refused if it names the vendor of the client's module path.
//
// It is run by hand when the client changes, never by tests or CI, with
// the root of the client's source (its module):
//
//	go run ./internal/apischema/clientgen -client /path/to/the/client
//
// It reads the client's Go source with go/ast and go/types. A method of the
// client is an operation's when its body calls newRequest with an HTTP
// method and a path, and then do (or doWithHeaders) with the value the
// body decodes into. The path is evaluated from the source: string
// literals and constants, +, fmt.Sprintf, path.Join, escaping functions,
// and calls of the package's own functions whose body is one return
// statement (the client's path helpers); a method's parameters and fields
// stand for path parameters. Paths that cannot be evaluated so are taken
// from handPaths, the hand-kept table of this file.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/dbplatform/platform-go/internal/apischema"
)

func main() {
	client := flag.String("client", "", "root of the official client's source (the directory of its go.mod)")
	out := flag.String("out", "internal/apischema/client.json", "path of the facts file to write")
	flag.Parse()
	if *client == "" {
		log.Fatal("clientgen: -client is required")
	}
	schema, err := apischema.Load()
	if err != nil {
		log.Fatal(err)
	}
	b, unmatched, err := generate(*client, schema)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range unmatched {
		log.Printf("no operation: %s", u)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// call is one request a method of the client makes: its HTTP method, its
// path as evaluated and the type its body decodes into.
type call struct {
	fn     string
	method string
	path   string
	typ    types.Type
}

// handPaths gives the HTTP method and path of the client's methods
// ("receiver.Method") whose path the evaluator cannot follow; empty today,
// as every path helper of the client is one return statement.
var handPaths = map[string][2]string{}

// generate reads the client's package under root and returns the facts
// file, with the requests of the client that answer no operation of the
// schema file (reported, not kept).
func generate(root string, schema *apischema.File) ([]byte, []string, error) {
	brand, err := vendor(root)
	if err != nil {
		return nil, nil, err
	}
	dir, err := packageDir(root)
	if err != nil {
		return nil, nil, err
	}
	calls, err := readCalls(dir)
	if err != nil {
		return nil, nil, err
	}
	byRoute := map[string][]string{}
	for name, op := range schema.Operations {
		key := op.Method + " " + normalize(op.Path)
		byRoute[key] = append(byRoute[key], name)
	}
	type use struct {
		op  string
		typ types.Type
	}
	var uses []use
	var unmatched []string
	for _, c := range calls {
		names := byRoute[c.method+" "+normalize(c.path)]
		if len(names) == 0 {
			unmatched = append(unmatched, fmt.Sprintf("%s: %s %s", c.fn, c.method, c.path))
			continue
		}
		if c.typ == nil {
			continue
		}
		for _, n := range names {
			uses = append(uses, use{n, c.typ})
		}
	}
	sort.SliceStable(uses, func(i, j int) bool { return uses[i].op < uses[j].op })
	f := apischema.ClientFile{Types: map[string]*apischema.Schema{}, Operations: map[string][]string{}}
	var named []types.Type
	var names []string
	for _, u := range uses {
		i := slices.IndexFunc(named, func(t types.Type) bool { return types.Identical(t, u.typ) })
		if i < 0 {
			name := u.op
			for n := 2; f.Types[name] != nil; n++ {
				name = fmt.Sprintf("%s_%d", u.op, n)
			}
			f.Types[name] = kind(u.typ, nil)
			named = append(named, u.typ)
			names = append(names, name)
			i = len(named) - 1
		}
		if !slices.Contains(f.Operations[u.op], names[i]) {
			f.Operations[u.op] = append(f.Operations[u.op], names[i])
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, nil, err
	}
	if err := brandNeutral(buf.Bytes(), brand); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), unmatched, nil
}

// brandNeutral refuses output that names the vendor, in any case.
func brandNeutral(out []byte, brand string) error {
	if loc := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(brand)).FindIndex(out); loc != nil {
		return fmt.Errorf("the output names the vendor (%q at byte %d): rename or leave out what carries it", brand, loc[0])
	}
	return nil
}

// vendor returns the owner of the client's module path (its go.mod's
// module line, "host/owner/name"), the word the output must not hold.
func vendor(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^module\s+[^/\s]+/([^/\s]+)/`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("go.mod: no module line of the form host/owner/name")
	}
	return string(m[1]), nil
}

// packageDir finds the client's package: the directory under root whose
// Go source defines the method newRequest.
func packageDir(root string) (string, error) {
	var found string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && regexp.MustCompile(`(?m)^func \(\w+ \*\w+\) newRequest\(`).Match(b) {
			found = filepath.Dir(p)
		}
		return err
	})
	if err == nil && found == "" {
		err = fmt.Errorf("no package under %s defines newRequest", root)
	}
	return found, err
}

// stubImporter imports the standard library from source and stands an
// empty package for any other (the client's dependencies, which no
// response type uses; the type checker's errors about them are ignored).
type stubImporter struct{ std types.Importer }

func (s stubImporter) Import(path string) (*types.Package, error) {
	if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
		p := types.NewPackage(path, path[strings.LastIndex(path, "/")+1:])
		p.MarkComplete()
		return p, nil
	}
	return s.std.Import(path)
}

// reader evaluates the client's paths.
type reader struct {
	info  *types.Info
	funcs map[*types.Func]*ast.FuncDecl
}

// readCalls type-checks the package in dir and returns every request its
// methods make, in file and source order.
func readCalls(dir string) ([]call, error) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	r := &reader{
		info:  &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}},
		funcs: map[*types.Func]*ast.FuncDecl{},
	}
	conf := types.Config{Importer: stubImporter{importer.ForCompiler(fset, "source", nil)}, Error: func(error) {}}
	conf.Check(files[0].Name.Name, fset, files, r.info) //nolint:errcheck // errors about the stubbed dependencies are expected
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				if obj, ok := r.info.Defs[fn.Name].(*types.Func); ok {
					r.funcs[obj] = fn
				}
			}
		}
	}
	var calls []call
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil || fn.Name.Name == "newRequest" {
				continue
			}
			calls = append(calls, r.methodCalls(fn)...)
		}
	}
	return calls, nil
}

// methodCalls returns the requests of one method: each newRequest call,
// with the type of the do call that follows it.
func (r *reader) methodCalls(fn *ast.FuncDecl) []call {
	recv := types.ExprString(fn.Recv.List[0].Type)
	name := strings.TrimPrefix(recv, "*") + "." + fn.Name.Name
	env := map[string]string{}
	var out []call
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && isString(r.info.TypeOf(n.Rhs[i])) {
						env[id.Name] = r.eval(n.Rhs[i], env)
					}
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "newRequest":
				if len(n.Args) < 2 {
					return true
				}
				c := call{fn: name, method: r.httpMethod(n.Args[0]), path: r.eval(n.Args[1], env)}
				if hand, ok := handPaths[name]; ok {
					c.method, c.path = hand[0], hand[1]
				}
				out = append(out, c)
			case "do", "doWithHeaders":
				if len(n.Args) == 3 && len(out) > 0 && out[len(out)-1].typ == nil {
					t := r.info.TypeOf(n.Args[2])
					for {
						p, ok := t.(*types.Pointer)
						if !ok {
							break
						}
						t = p.Elem()
					}
					if t != nil && !isNil(n.Args[2]) {
						out[len(out)-1].typ = t
					}
				}
			}
		}
		return true
	})
	return out
}

func isNil(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "nil"
}

func isString(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// httpMethod evaluates http.MethodX or a string literal.
func (r *reader) httpMethod(e ast.Expr) string {
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	return "?"
}

// eval evaluates a string expression into a path, "{}" standing for
// whatever is not known at compile time.
func (r *reader) eval(e ast.Expr, env map[string]string) string {
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil {
		if tv.Value.Kind() == constant.String {
			return constant.StringVal(tv.Value)
		}
		return tv.Value.ExactString()
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return r.eval(e.X, env)
	case *ast.Ident:
		if v, ok := env[e.Name]; ok {
			return v
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return r.eval(e.X, env) + r.eval(e.Y, env)
		}
	case *ast.CallExpr:
		return r.evalCall(e, env)
	}
	return "{}"
}

func (r *reader) evalCall(e *ast.CallExpr, env map[string]string) string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = r.eval(a, env)
	}
	var obj types.Object
	switch f := e.Fun.(type) {
	case *ast.Ident:
		obj = r.info.Uses[f]
	case *ast.SelectorExpr:
		obj = r.info.Uses[f.Sel]
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		if len(args) == 1 {
			return args[0] // a conversion
		}
		return "{}"
	}
	switch full := fn.FullName(); full {
	case "fmt.Sprintf":
		if len(args) == 0 {
			return "{}"
		}
		rest := args[1:]
		return regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`).ReplaceAllStringFunc(args[0], func(verb string) string {
			if verb == "%%" {
				return "%"
			}
			if len(rest) == 0 {
				return "{}"
			}
			v := rest[0]
			rest = rest[1:]
			return v
		})
	case "path.Join":
		var parts []string
		for _, a := range args {
			if a != "" {
				parts = append(parts, strings.Trim(a, "/"))
			}
		}
		lead := ""
		if len(args) > 0 && strings.HasPrefix(args[0], "/") {
			lead = "/"
		}
		return lead + strings.Join(parts, "/")
	case "net/url.PathEscape", "net/url.QueryEscape":
		return args[0]
	}
	decl := r.funcs[fn]
	if decl == nil || decl.Recv != nil || decl.Body == nil || len(decl.Body.List) != 1 {
		return "{}"
	}
	ret, ok := decl.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return "{}"
	}
	inner := map[string]string{}
	i := 0
	for _, field := range decl.Type.Params.List {
		for _, n := range field.Names {
			if i < len(args) {
				inner[n.Name] = args[i]
			}
			i++
		}
	}
	return r.eval(ret.Results[0], inner)
}

// placeholder matches a path parameter, of the schema file ("{branch}") or
// of an evaluated path ("{}").
var placeholder = regexp.MustCompile(`\{[^}/]*\}`)

// normalize makes a path comparable: without a query, with a leading
// slash, without a trailing one, every parameter "{}".
func normalize(p string) string {
	p, _, _ = strings.Cut(p, "?")
	p = "/" + strings.Trim(p, "/")
	return placeholder.ReplaceAllString(p, "{}")
}

// kind converts a Go type into the facts of what its JSON is decoded as;
// seen holds the named types being converted, to stop at a cycle. Null is
// allowed everywhere: encoding/json decodes it into any Go type without
// error. A type that decodes itself (UnmarshalJSON) is of any kind, a
// TextUnmarshaler a string.
func kind(t types.Type, seen []types.Type) *apischema.Schema {
	s := &apischema.Schema{Nullable: true}
	if named, ok := t.(*types.Named); ok {
		obj := named.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			s.Type = "string"
			return s
		}
		if obj.Pkg() != nil && obj.Pkg().Path() == "encoding/json" {
			return s // RawMessage, Number: any
		}
		ms := types.NewMethodSet(types.NewPointer(t))
		for method := range ms.Methods() {
			switch method.Obj().Name() {
			case "UnmarshalJSON":
				return s
			case "UnmarshalText":
				s.Type = "string"
				return s
			}
		}
		if slices.ContainsFunc(seen, func(u types.Type) bool { return types.Identical(u, t) }) {
			s.Type = "object"
			return s
		}
		seen = append(seen, t)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch info := u.Info(); {
		case info&types.IsBoolean != 0:
			s.Type = "boolean"
		case info&types.IsInteger != 0:
			s.Type = "integer"
		case info&types.IsFloat != 0:
			s.Type = "number"
		case info&types.IsString != 0:
			s.Type = "string"
		}
	case *types.Pointer:
		return kind(u.Elem(), seen)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			s.Type = "string"
			return s
		}
		s.Type, s.Items = "array", kind(u.Elem(), seen)
	case *types.Array:
		s.Type, s.Items = "array", kind(u.Elem(), seen)
	case *types.Map:
		s.Type, s.Values = "object", kind(u.Elem(), seen)
	case *types.Struct:
		s.Type = "object"
		s.Properties = map[string]*apischema.Schema{}
		fields(u, seen, s.Properties, &s.Optional)
		sort.Strings(s.Optional)
	}
	return s
}

// fields adds the JSON properties of a struct's fields to props, embedded
// structs' fields flattened as encoding/json does; the names of those
// tagged omitempty go to optional. A field without a json
// tag is left out: encoding/json matches its name without regard to case,
// which these facts cannot say.
func fields(st *types.Struct, seen []types.Type, props map[string]*apischema.Schema, optional *[]string) {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag, ok := reflect.StructTag(st.Tag(i)).Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Embedded() && name == "" {
			t := f.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if inner, ok := t.Underlying().(*types.Struct); ok {
				fields(inner, seen, props, optional)
				continue
			}
		}
		if !f.Exported() || !ok || name == "" {
			continue
		}
		if slices.Contains(strings.Split(opts, ","), "string") {
			props[name] = &apischema.Schema{Type: "string", Nullable: true}
		} else {
			props[name] = kind(f.Type(), seen)
		}
		if slices.Contains(strings.Split(opts, ","), "omitempty") {
			*optional = append(*optional, name)
		}
	}
}
