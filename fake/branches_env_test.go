package fake_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// branchEnv is a fake with one ready database, for the branch and schema
// tests.
type branchEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	org string
	db  string
}

// newBranchEnv starts a fake and creates a ready database named db.
func newBranchEnv(t *testing.T, db string, opts ...fake.Option) *branchEnv {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	e := &branchEnv{t: t, srv: srv, c: srv.Client(), org: srv.Org(), db: db}
	e.createDatabase(db, platform.KindMySQL)
	return e
}

// createDatabase creates another database of kind and waits until it and
// its main branch are ready.
func (e *branchEnv) createDatabase(name string, kind platform.DatabaseKind) {
	e.t.Helper()
	_, err := e.c.Databases.Create(e.t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: name, ClusterSize: "PS_10", Kind: kind})
	if err != nil {
		e.t.Fatalf("creating database %s: %v", name, err)
	}
	e.srv.Advance(5 * time.Second)
}

// with returns the environment for a subtest t, sharing the server.
func (e *branchEnv) with(t *testing.T) *branchEnv {
	c := *e
	c.t = t
	return &c
}

// ref names a branch of the environment's database.
func (e *branchEnv) ref(name string) *platform.BranchParams {
	return &platform.BranchParams{Organization: e.org, Database: e.db, Branch: name}
}

// tryCreate creates a branch with p's fields (its path values filled in).
func (e *branchEnv) tryCreate(p platform.CreateBranchParams) (*platform.Branch, error) {
	p.Organization, p.Database = e.org, e.db
	return e.c.Branches.Create(e.t.Context(), &p)
}

// create creates a branch from the default branch; ready says whether to
// move the clock until it is ready.
func (e *branchEnv) create(name string, ready bool) *platform.Branch {
	e.t.Helper()
	return e.createFrom(name, "", ready)
}

// createFrom creates a branch of parent.
func (e *branchEnv) createFrom(name, parent string, ready bool) *platform.Branch {
	e.t.Helper()
	b, err := e.tryCreate(platform.CreateBranchParams{Name: name, ParentBranch: parent})
	if err != nil {
		e.t.Fatalf("creating branch %s: %v", name, err)
	}
	if ready {
		e.srv.Advance(5 * time.Second)
		return e.get(name)
	}
	return b
}

// get returns a branch, failing the test if it cannot.
func (e *branchEnv) get(name string) *platform.Branch {
	e.t.Helper()
	b, err := e.c.Branches.Get(e.t.Context(), e.ref(name))
	if err != nil {
		e.t.Fatalf("getting branch %s: %v", name, err)
	}
	return b
}

// exists reports whether a branch can be found.
func (e *branchEnv) exists(name string) bool {
	e.t.Helper()
	_, err := e.c.Branches.Get(e.t.Context(), e.ref(name))
	if err != nil && !errors.Is(err, platform.ErrNotFound) {
		e.t.Fatalf("getting branch %s: %v", name, err)
	}
	return err == nil
}

// list returns one page of branches for p (path values filled in).
func (e *branchEnv) list(p platform.ListBranchesParams) *platform.Page[platform.Branch] {
	e.t.Helper()
	p.Organization, p.Database = e.org, e.db
	page, err := e.c.Branches.List(e.t.Context(), &p)
	if err != nil {
		e.t.Fatalf("listing branches: %v", err)
	}
	return page
}

// names returns the names of a page's branches.
func names(p *platform.Page[platform.Branch]) []string {
	out := []string{}
	for _, b := range p.Items {
		out = append(out, b.Name)
	}
	return out
}

// push changes a branch's schema, failing the test if it cannot.
func (e *branchEnv) push(branch string, ddl ...string) {
	e.t.Helper()
	if err := e.srv.PushSchema(e.org, e.db, branch, ddl...); err != nil {
		e.t.Fatalf("PushSchema: %v", err)
	}
}

// schema returns a branch's tables as name -> raw statement.
func (e *branchEnv) schema(branch string) map[string]string {
	e.t.Helper()
	s, err := e.c.Branches.GetSchema(e.t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: e.db, Branch: branch})
	if err != nil {
		e.t.Fatalf("GetSchema %s: %v", branch, err)
	}
	out := map[string]string{}
	for _, tbl := range s.Tables {
		out[tbl.Name] = tbl.Raw
	}
	return out
}

// raw sends a request with the admin token, bypassing the SDK's own
// checks, and returns the status and body.
func (e *branchEnv) raw(method, path, body string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL()+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", e.srv.AdminToken().Authorization())
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := clientOf(e.srv).Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// branchesPath is the path of the environment's branches.
func (e *branchEnv) branchesPath() string {
	return "/v1/organizations/" + e.org + "/databases/" + e.db + "/branches"
}
