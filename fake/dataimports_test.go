package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// importEnv is a fake whose organization has the external database
// legacy.example.com set up as reachable.
type importEnv struct {
	srv *fake.Server
	c   *platform.Client
	org string
}

func newImportEnv(t *testing.T, src fake.ImportSource, opts ...fake.Option) *importEnv {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	if err := srv.SetImportSource(srv.Org(), opImportHost, src); err != nil {
		t.Fatal(err)
	}
	return &importEnv{srv: srv, c: srv.Client(), org: srv.Org()}
}

// conn is a connection to legacy.example.com.
func (e *importEnv) conn() platform.DataImportConnection {
	return platform.DataImportConnection{Hostname: opImportHost, Database: "legacy", Username: "u", Password: "p", SSLMode: platform.SSLModeRequired}
}

// start starts an import into db.
func (e *importEnv) start(t *testing.T, db string) *platform.DataImport {
	t.Helper()
	imp, err := e.c.DataImports.Start(t.Context(), &platform.StartDataImportParams{Organization: e.org, DatabaseName: db, Connection: e.conn()})
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

func (e *importEnv) ref(db string) *platform.DataImportParams {
	return &platform.DataImportParams{Organization: e.org, Database: db}
}

// get returns the import of db.
func (e *importEnv) get(t *testing.T, db string) *platform.DataImport {
	t.Helper()
	imp, err := e.c.DataImports.Get(t.Context(), e.ref(db))
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

// TestDataImportHappyPath runs an import from start to ready on the clock,
// checking the import's and its database's states at each step.
func TestDataImportHappyPath(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	ctx := t.Context()
	t0 := e.srv.Now()
	imp := e.start(t, "imported")
	want := &platform.DataImport{
		ID: imp.ID, State: platform.DataImportPreparingDataCopy, StartedAt: platform.Ptr(platform.NewTimestamp(t0)),
		DataSource: platform.DataSource{Hostname: opImportHost, Port: 3306, Database: "legacy", SchemaName: "legacy", Username: "u", SSLMode: "required"},
	}
	if diff := cmp.Diff(want, imp); diff != "" {
		t.Fatalf("start (-want +got):\n%s", diff)
	}
	type step struct {
		act     func() (*platform.DataImport, error)
		advance time.Duration
		state   platform.DataImportState
		dbState platform.DatabaseState
	}
	steps := []step{
		{nil, 9 * time.Second, platform.DataImportPreparingDataCopy, platform.DatabaseImporting},
		{nil, time.Second, platform.DataImportCopyingData, platform.DatabaseImporting},
		{nil, time.Minute, platform.DataImportSwitchTrafficPending, platform.DatabaseImportReady},
		{func() (*platform.DataImport, error) { return e.c.DataImports.MakePrimary(ctx, e.ref("imported")) }, 0, platform.DataImportSwitchTrafficRunning, platform.DatabaseImportReady},
		{nil, 10 * time.Second, platform.DataImportSwitchTrafficCompleted, platform.DatabaseImportReady},
		{func() (*platform.DataImport, error) { return e.c.DataImports.MakeReplica(ctx, e.ref("imported")) }, 0, platform.DataImportReverseTrafficRunning, platform.DatabaseImportReady},
		{nil, 10 * time.Second, platform.DataImportSwitchTrafficPending, platform.DatabaseImportReady},
		{func() (*platform.DataImport, error) { return e.c.DataImports.MakePrimary(ctx, e.ref("imported")) }, 10 * time.Second, platform.DataImportSwitchTrafficCompleted, platform.DatabaseImportReady},
		{func() (*platform.DataImport, error) { return e.c.DataImports.Detach(ctx, e.ref("imported")) }, 0, platform.DataImportDetachExternalDatabaseRunning, platform.DatabaseImportReady},
		{nil, 10 * time.Second, platform.DataImportReady, platform.DatabaseReady},
	}
	for i, st := range steps {
		if st.act != nil {
			got, err := st.act()
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if got.State == "" {
				t.Fatalf("step %d: the action answered no state", i)
			}
		}
		e.srv.Advance(st.advance)
		got := e.get(t, "imported")
		db, err := e.c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: e.org, Database: "imported"})
		if err != nil {
			t.Fatal(err)
		}
		if got.State != st.state || db.State != st.dbState || db.DataImport == nil || db.DataImport.State != st.state {
			t.Fatalf("step %d: import %s, database %s (its data_import %+v), want %s and %s", i, got.State, db.State, db.DataImport, st.state, st.dbState)
		}
	}
	got := e.get(t, "imported")
	if got.FinishedAt == nil || !got.FinishedAt.Time.Equal(e.srv.Now()) {
		t.Errorf("finished_at = %v, want %v", got.FinishedAt, e.srv.Now())
	}
	// The database is an ordinary one: its production branch is ready.
	b, err := e.c.Branches.Get(ctx, &platform.GetBranchParams{Organization: e.org, Database: "imported", Branch: "main"})
	if err != nil || !b.Ready || !b.Production {
		t.Errorf("branch main = %+v, %v; want a ready production branch", b, err)
	}
}

// TestDataImportRefusals checks that each action is refused with a 422
// naming the state where the command-line tool refuses it, and changes
// nothing.
func TestDataImportRefusals(t *testing.T) {
	t.Parallel()
	type action struct {
		name string
		do   func(c *platform.Client, ctx context.Context, p *platform.DataImportParams) error
		// allowed is the one state it runs in; "" for any but ready.
		allowed platform.DataImportState
	}
	asErr := func(fn func(*platform.DataImportsService, context.Context, *platform.DataImportParams) (*platform.DataImport, error)) func(*platform.Client, context.Context, *platform.DataImportParams) error {
		return func(c *platform.Client, ctx context.Context, p *platform.DataImportParams) error {
			_, err := fn(c.DataImports, ctx, p)
			return err
		}
	}
	actions := []action{
		{"make primary", asErr((*platform.DataImportsService).MakePrimary), platform.DataImportSwitchTrafficPending},
		{"make replica", asErr((*platform.DataImportsService).MakeReplica), platform.DataImportSwitchTrafficCompleted},
		{"detach", asErr((*platform.DataImportsService).Detach), platform.DataImportSwitchTrafficCompleted},
		{"cancel", func(c *platform.Client, ctx context.Context, p *platform.DataImportParams) error {
			return c.DataImports.Cancel(ctx, p)
		}, ""},
	}
	// reach moves a new import of db to state.
	reach := map[platform.DataImportState]func(e *importEnv, t *testing.T, db string){
		platform.DataImportPreparingDataCopy: func(*importEnv, *testing.T, string) {},
		platform.DataImportCopyingData:       func(e *importEnv, _ *testing.T, _ string) { e.srv.Advance(10 * time.Second) },
		platform.DataImportSwitchTrafficPending: func(e *importEnv, _ *testing.T, _ string) {
			e.srv.Advance(70 * time.Second)
		},
		platform.DataImportSwitchTrafficCompleted: func(e *importEnv, t *testing.T, db string) {
			e.srv.Advance(70 * time.Second)
			if _, err := e.c.DataImports.MakePrimary(t.Context(), e.ref(db)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		},
		platform.DataImportReady: func(e *importEnv, t *testing.T, db string) {
			e.srv.Advance(70 * time.Second)
			if _, err := e.c.DataImports.MakePrimary(t.Context(), e.ref(db)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
			if _, err := e.c.DataImports.Detach(t.Context(), e.ref(db)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		},
		platform.DataImportCopyingDataFailed: func(e *importEnv, t *testing.T, db string) {
			e.srv.Advance(10 * time.Second)
			if err := e.srv.FailNext(e.get(t, db).ID); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(time.Minute)
		},
	}
	for state, setup := range reach {
		for _, a := range actions {
			allowed := a.allowed == state || (a.allowed == "" && state != platform.DataImportReady)
			if allowed {
				continue
			}
			t.Run(a.name+" in "+string(state), func(t *testing.T) {
				t.Parallel()
				e := newImportEnv(t, fake.ImportSource{Reachable: true})
				e.start(t, "imported")
				setup(e, t, "imported")
				if got := e.get(t, "imported").State; got != state {
					t.Fatalf("setup reached %s, want %s", got, state)
				}
				before := opWorldState(t, e.srv)
				err := a.do(e.c, t.Context(), e.ref("imported"))
				apiError(t, err, http.StatusUnprocessableEntity, string(state))
				if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
					t.Errorf("a refused %s changed the world (-before +after):\n%s", a.name, diff)
				}
			})
		}
	}
}

// TestDataImportFailures fails each step with FailNext: the import ends in
// the step's error state, saying why, and only a cancel leaves it.
func TestDataImportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// before moves the import to where the failing step is next.
		before func(e *importEnv, t *testing.T)
		// step starts the failing step and runs it.
		step func(e *importEnv, t *testing.T)
		want platform.DataImportState
	}{
		{"prepare", func(*importEnv, *testing.T) {}, func(e *importEnv, _ *testing.T) { e.srv.Advance(10 * time.Second) }, platform.DataImportPreparingDataCopyFailed},
		{"copy", func(e *importEnv, _ *testing.T) { e.srv.Advance(10 * time.Second) }, func(e *importEnv, _ *testing.T) { e.srv.Advance(time.Minute) }, platform.DataImportCopyingDataFailed},
		{"switch", func(e *importEnv, _ *testing.T) { e.srv.Advance(70 * time.Second) }, func(e *importEnv, t *testing.T) {
			if _, err := e.c.DataImports.MakePrimary(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		}, platform.DataImportSwitchTrafficError},
		{"reverse", func(e *importEnv, t *testing.T) {
			e.srv.Advance(70 * time.Second)
			if _, err := e.c.DataImports.MakePrimary(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		}, func(e *importEnv, t *testing.T) {
			if _, err := e.c.DataImports.MakeReplica(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		}, platform.DataImportReverseTrafficError},
		{"detach", func(e *importEnv, t *testing.T) {
			e.srv.Advance(70 * time.Second)
			if _, err := e.c.DataImports.MakePrimary(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		}, func(e *importEnv, t *testing.T) {
			if _, err := e.c.DataImports.Detach(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
		}, platform.DataImportDetachExternalDatabaseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newImportEnv(t, fake.ImportSource{Reachable: true})
			id := e.start(t, "imported").ID
			tt.before(e, t)
			if err := e.srv.FailNext(id); err != nil {
				t.Fatal(err)
			}
			tt.step(e, t)
			got := e.get(t, "imported")
			if got.State != tt.want || !got.State.Failed() || got.ImportCheckErrors == "" {
				t.Fatalf("import = %s (%q), want %s with its reason", got.State, got.ImportCheckErrors, tt.want)
			}
			if err := e.srv.FailNext(id); err == nil {
				t.Error("FailNext accepted a failed import, which has nothing ahead")
			}
			_, err := e.c.DataImports.Wait(t.Context(), e.ref("imported"), platform.DataImportReady)
			if se, ok := err.(*platform.StateError); !ok || se.State != string(tt.want) {
				t.Errorf("Wait for ready = %v, want a *StateError at %s", err, tt.want)
			}
			if err := e.c.DataImports.Cancel(t.Context(), e.ref("imported")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDataImportCancelDeletesTheDatabase: a cancel removes the database and
// its import; its pending step then does nothing, and the name is free.
func TestDataImportCancelDeletesTheDatabase(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	ctx := t.Context()
	e.start(t, "imported")
	e.srv.Advance(10 * time.Second)
	if err := e.c.DataImports.Cancel(ctx, e.ref("imported")); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: e.org, Database: "imported"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.DataImports.Get(ctx, e.ref("imported"))
	apiError(t, err, http.StatusNotFound)
	e.srv.Advance(time.Hour) // the copy's step finds nothing to do
	again := e.start(t, "imported")
	if again.State != platform.DataImportPreparingDataCopy {
		t.Errorf("a new import of the same name is %s", again.State)
	}
}

// TestDataImportCancelRefusesAProtectedDatabase: cancelling deletes the
// database, so a deletion-protected one refuses it, naming the setting,
// and keeps both the database and its import.
func TestDataImportCancelRefusesAProtectedDatabase(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	ctx := t.Context()
	e.start(t, "imported")
	if _, err := e.c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: e.org, Database: "imported", DeletionProtected: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	before := opWorldState(t, e.srv)
	err := e.c.DataImports.Cancel(ctx, e.ref("imported"))
	apiError(t, err, http.StatusUnprocessableEntity, "deletion protected", "imported")
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("a refused cancel changed the world (-before +after):\n%s", diff)
	}
	if got := e.get(t, "imported").State; got != platform.DataImportPreparingDataCopy {
		t.Errorf("the import after a refused cancel is %s", got)
	}
}

// TestDataImportWithoutImport: the import operations of a database no
// import created answer 404, which the service's command-line tool reads as
// "not importing data".
func TestDataImportWithoutImport(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	mustDB(t, e.srv, "plain")
	_, err := e.c.DataImports.Get(t.Context(), e.ref("plain"))
	apiError(t, err, http.StatusNotFound, "has no data import", "plain")
	err = e.c.DataImports.Cancel(t.Context(), e.ref("plain"))
	apiError(t, err, http.StatusNotFound, "has no data import")
	db, err := e.c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: e.org, Database: "plain"})
	if err != nil || db.DataImport != nil {
		t.Errorf("database plain = %+v, %v; want no data_import", db, err)
	}
}

// TestDataImportTestSource checks what a test of a source answers, from
// what the test set up; the same findings refuse a start.
func TestDataImportTestSource(t *testing.T) {
	t.Parallel()
	lint := []platform.DataImportLintError{{LintError: "NO_PRIMARY_KEY", Table: "employees", ErrorDescription: "Table 'employees' has no primary key"}}
	tests := []struct {
		name  string
		src   *fake.ImportSource // nil: not set up
		pass  string
		want  platform.DataImportSourceCheck
		start []string // words of start's 422; nil when it starts
		plan  string
	}{
		{"not set up", nil, "p", platform.DataImportSourceCheck{Error: "could not connect to legacy.example.com:3306: no database server answers there"}, []string{"could not connect"}, ""},
		{"unreachable", &fake.ImportSource{ConnectError: "external database is down"}, "p", platform.DataImportSourceCheck{Error: "external database is down"}, []string{"external database is down"}, ""},
		{"wrong password", &fake.ImportSource{Reachable: true, Password: "secret"}, "p", platform.DataImportSourceCheck{Error: `access denied for user "u" at legacy.example.com:3306`}, []string{"access denied"}, ""},
		{"lint errors", &fake.ImportSource{Reachable: true, LintErrors: lint}, "p", platform.DataImportSourceCheck{CanConnect: true, LintErrors: lint}, []string{"cannot be imported", "no primary key"}, ""},
		{"too large for the free plan", &fake.ImportSource{Reachable: true, NeedsUpgrade: true, SuggestedPlan: "scaler_pro", MaxPoolSize: 50}, "p", platform.DataImportSourceCheck{CanConnect: true, ShouldUpgrade: true, SuggestedPlan: "scaler_pro", MaxPoolSize: 50}, []string{"plan developer", "scaler_pro"}, ""},
		{"too large, on the paid plan", &fake.ImportSource{Reachable: true, NeedsUpgrade: true, SuggestedPlan: "scaler_pro"}, "p", platform.DataImportSourceCheck{CanConnect: true, ShouldUpgrade: true, SuggestedPlan: "scaler_pro", MaxPoolSize: 20}, nil, "scaler_pro"},
		{"compatible", &fake.ImportSource{Reachable: true, Password: "p"}, "p", platform.DataImportSourceCheck{CanConnect: true, SuggestedPlan: "developer", MaxPoolSize: 20}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			if tt.src != nil {
				if err := srv.SetImportSource(srv.Org(), opImportHost, *tt.src); err != nil {
					t.Fatal(err)
				}
			}
			e := &importEnv{srv: srv, c: srv.Client(), org: srv.Org()}
			conn := e.conn()
			conn.Password = tt.pass
			got, err := e.c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: e.org, DatabaseName: "legacy", Connection: conn})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.LintErrors == nil {
				tt.want.LintErrors = []platform.DataImportLintError{}
			}
			if tt.want.SuggestedPlan == "" {
				tt.want.SuggestedPlan = "developer"
			}
			if tt.want.MaxPoolSize == 0 {
				tt.want.MaxPoolSize = 20
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("test (-want +got):\n%s", diff)
			}
			p := &platform.StartDataImportParams{Organization: e.org, DatabaseName: "imported", Connection: conn}
			if tt.plan != "" {
				p.Plan = platform.Ptr(tt.plan)
			}
			before := opWorldState(t, srv)
			_, err = e.c.DataImports.Start(t.Context(), p)
			if tt.start == nil {
				if err != nil {
					t.Errorf("start: %v", err)
				}
				return
			}
			apiError(t, err, http.StatusUnprocessableEntity, tt.start...)
			if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
				t.Errorf("a refused start changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDataImportBadRequests: bad input is a 422 naming the field, and
// changes nothing.
func TestDataImportBadRequests(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	mustDB(t, e.srv, "taken")
	good := e.conn()
	with := func(fn func(*platform.DataImportConnection)) platform.DataImportConnection {
		c := good
		fn(&c)
		return c
	}
	tests := []struct {
		name string
		p    platform.StartDataImportParams
		word string
	}{
		{"no host", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Hostname = " " })}, "connection.hostname"},
		{"long host", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Hostname = strings.Repeat("h", 256) })}, "connection.hostname is longer than 255"},
		{"long password", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Password = strings.Repeat("p", 64<<10+1) })}, "connection.password is longer"},
		{"long ssl_key", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.SSLKey = strings.Repeat("k", 64<<10+1) })}, "connection.ssl_key is longer"},
		{"no schema", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Database = "" })}, "connection.schema_name"},
		{"no user", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Username = "" })}, "connection.username"},
		{"bad port", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.Port = 70000 })}, "connection.port"},
		{"bad ssl mode", platform.StartDataImportParams{DatabaseName: "x", Connection: with(func(c *platform.DataImportConnection) { c.SSLMode = "sometimes" })}, "connection.ssl_mode"},
		{"bad name", platform.StartDataImportParams{DatabaseName: "Bad_Name", Connection: good}, "database_name"},
		{"taken name", platform.StartDataImportParams{DatabaseName: "taken", Connection: good}, "already taken"},
		{"bad region", platform.StartDataImportParams{DatabaseName: "x", Connection: good, Region: platform.Ptr("mars-1")}, "region"},
		{"bad plan", platform.StartDataImportParams{DatabaseName: "x", Connection: good, Plan: platform.Ptr("enterprise")}, "plan"},
		{"bad pool", platform.StartDataImportParams{DatabaseName: "x", Connection: good, MaxPoolSize: platform.Ptr(-3)}, "max_pool_size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := opWorldState(t, e.srv)
			tt.p.Organization = e.org
			_, err := e.c.DataImports.Start(t.Context(), &tt.p)
			apiError(t, err, http.StatusUnprocessableEntity, tt.word)
			if strings.HasPrefix(tt.word, "connection.") {
				// A test of the source checks the connection as a start does.
				_, err := e.c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: e.org, Connection: tt.p.Connection})
				apiError(t, err, http.StatusUnprocessableEntity, tt.word)
			}
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("a refused start changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDataImportStartAsTheOfficialClientSends: the official client sends
// the organization in the body, an untagged TLS mode number, and empty
// region, plan and pool; the fake accepts them, defaults the port, and
// answers the fields the client reads.
func TestDataImportStartAsTheOfficialClientSends(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	body := `{"organization":"` + e.org + `","database_name":"imported","connection":{"hostname":"` + opImportHost +
		`","schema_name":"legacy","port":0,"ssl_mode":"disabled","SSLVerificationMode":0,"username":"u","password":"p",` +
		`"ssl_ca":"","ssl_cert":"","ssl_key":"","ssl_server_name":""},"region":"","plan":"","max_pool_size":0}`
	r := send(t, e.srv, "POST", "/v1/organizations/"+e.org+"/data-imports/new", admin(e.srv), body)
	if r.status != http.StatusOK {
		t.Fatalf("start = %d %s", r.status, r.body)
	}
	var got map[string]any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	src, _ := got["data_source"].(map[string]any)
	for _, f := range []string{"id", "state", "import_check_errors", "started_at", "finished_at"} {
		if _, ok := got[f]; !ok {
			t.Errorf("the answer lacks %q: %s", f, r.body)
		}
	}
	if src["hostname"] != opImportHost || src["schema_name"] != "legacy" || src["port"] != 3306.0 || src["ssl_mode"] != "disabled" {
		t.Errorf("data_source = %v", src)
	}
	if _, ok := src["password"]; ok {
		t.Errorf("data_source shows the password: %v", src)
	}
}

// TestImportNotifications: notifications are kept, oldest first, with
// every field; a bad one is refused naming its field.
func TestImportNotifications(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	mustDB(t, e.srv, "app")
	e.srv.Advance(time.Minute)
	ctx := t.Context()
	p := &platform.CreateImportNotificationParams{
		Organization: e.org, Database: "app", MigrationID: "abc123", Event: "imported", BranchName: platform.Ptr("main"),
		Method: platform.Ptr("pgloader"), ExportBytes: platform.Ptr(int64(1024)), TableCount: platform.Ptr(3), Matched: platform.Ptr(true),
	}
	if err := e.c.DataImports.CreateNotification(ctx, p); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second)
	if err := e.c.DataImports.CreateNotification(ctx, &platform.CreateImportNotificationParams{
		Organization: e.org, Database: "app", MigrationID: "abc123", Event: "progress", Stage: platform.Ptr("sqlite_staging"), Message: platform.Ptr("Staging"),
	}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		body, word string
	}{
		{`{"event":"x"}`, "migration_id"},
		{`{"migration_id":"m"}`, "event"},
		{`{"migration_id":"m","event":"x","branch_name":"nope"}`, "branch_name"},
		{`{"migration_id":"m","event":"x","table_count":-1}`, "table_count"},
		{`{"migration_id":"m","event":"x","export_bytes":-1}`, "export_bytes"},
		{`{"migration_id":"m","event":"x","duration_ms":-1}`, "duration_ms"},
		{`{"migration_id":"m","event":"x","stage":"` + strings.Repeat("s", 4097) + `"}`, "stage is longer than 4096"},
	} {
		r := send(t, e.srv, "POST", "/internal/organizations/"+e.org+"/databases/app/d1-import-notifications", admin(e.srv), bad.body)
		if r.status != http.StatusUnprocessableEntity || !json.Valid(r.body) || !strings.Contains(string(r.body), bad.word) {
			t.Errorf("%s: %d %s, want 422 naming %s", bad.body, r.status, r.body, bad.word)
		}
	}
	got, err := e.srv.ImportNotifications(e.org, "app")
	if err != nil {
		t.Fatal(err)
	}
	t0 := e.srv.Now().Add(-time.Second)
	want := []fake.ImportNotification{
		{At: t0, MigrationID: "abc123", Event: "imported", BranchName: "main", Method: "pgloader", ExportBytes: 1024, TableCount: 3, Matched: platform.Ptr(true)},
		{At: e.srv.Now(), MigrationID: "abc123", Event: "progress", Stage: "sqlite_staging", Message: "Staging"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

// TestDataImportSnapshot: an import restored mid-copy goes on to the same
// states at the same times, its source and notifications with it.
func TestDataImportSnapshot(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true, LintErrors: []platform.DataImportLintError{{LintError: "X", ErrorDescription: "x"}}})
	if err := e.srv.SetImportSource(e.org, "good.example.com", fake.ImportSource{Reachable: true, Password: "p"}); err != nil {
		t.Fatal(err)
	}
	conn := e.conn()
	conn.Hostname = "good.example.com"
	if _, err := e.c.DataImports.Start(t.Context(), &platform.StartDataImportParams{Organization: e.org, DatabaseName: "imported", Connection: conn}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DataImports.CreateNotification(t.Context(), &platform.CreateImportNotificationParams{Organization: e.org, Database: "imported", MigrationID: "m", Event: "progress"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(15 * time.Second)
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := fake.NewServer(t)
	if err := other.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for _, srv := range []*fake.Server{e.srv, other} {
		srv.Advance(time.Minute)
	}
	a, b := e.get(t, "imported"), (&importEnv{srv: other, c: other.Client(), org: e.org}).get(t, "imported")
	if diff := cmp.Diff(a, b); diff != "" || a.State != platform.DataImportSwitchTrafficPending {
		t.Errorf("restored import (-original +restored):\n%s (state %s)", diff, a.State)
	}
	n1, _ := e.srv.ImportNotifications(e.org, "imported")
	n2, _ := other.ImportNotifications(e.org, "imported")
	if diff := cmp.Diff(n1, n2); diff != "" || len(n2) != 1 {
		t.Errorf("restored notifications (-original +restored):\n%s", diff)
	}
	oc := &importEnv{srv: other, c: other.Client(), org: e.org}
	for host, want := range map[string]bool{opImportHost: false, "good.example.com": true} {
		c := oc.conn()
		c.Hostname = host
		got, err := oc.c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: e.org, Connection: c})
		if err != nil || got.Compatible() != want {
			t.Errorf("restored source %s: %+v, %v; want compatible %v", host, got, err, want)
		}
	}
}

// TestDataImportRestoreRefusesCorrupt: a restore checks what it loads of
// data imports, naming the path.
func TestDataImportRestoreRefusesCorrupt(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	e.start(t, "imported")
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(di map[string]any)
		word string
	}{
		{"unknown state", func(di map[string]any) { imp(di)["state"] = "copying" }, "data_imports.imports[0].state"},
		{"no host", func(di map[string]any) { imp(di)["source"].(map[string]any)["host"] = "" }, "hostname"},
		{"bad plan", func(di map[string]any) { imp(di)["plan"] = "gold" }, "plan"},
		{"unknown database", func(di map[string]any) { imp(di)["database"] = "nope" }, "database"},
		{"finished early", func(di map[string]any) { imp(di)["finished"] = "2026-01-01T00:00:00Z" }, "finished"},
		{"bad source plan", func(di map[string]any) {
			di["sources"].([]any)[0].(map[string]any)["source"].(map[string]any)["suggested_plan"] = "gold"
		}, "sources[0].source"},
		{"bad notification", func(di map[string]any) {
			di["notifications"] = []any{map[string]any{"database": imp(di)["database"], "notes": []any{map[string]any{"at": "2026-01-01T00:00:00Z", "migration_id": "", "event": "x"}}}}
		}, "migration_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(snap, &m); err != nil {
				t.Fatal(err)
			}
			tt.edit(m["data_imports"].(map[string]any))
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			srv := fake.NewServer(t)
			before := opWorldState(t, srv)
			err = srv.Restore(data)
			if err == nil || !strings.Contains(err.Error(), tt.word) {
				t.Errorf("Restore = %v, want an error naming %s", err, tt.word)
			}
			if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
				t.Errorf("a refused restore changed the server (-before +after):\n%s", diff)
			}
		})
	}
}

// imp is the first import of a snapshot's data_imports.
func imp(di map[string]any) map[string]any { return di["imports"].([]any)[0].(map[string]any) }

// TestImportControlEndpoints sets a source and reads notifications over the
// control surface, as the standalone binary's users do.
func TestImportControlEndpoints(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := srv.Org()
	r := send(t, srv, "PUT", "/_fake/organizations/"+org+"/import-sources/"+opImportHost, admin(srv), `{"reachable":true,"lint_errors":[{"lint_error":"NO_PRIMARY_KEY","table_name":"t","error_description":"no key"}]}`)
	if r.status != http.StatusNoContent {
		t.Fatalf("PUT import source = %d %s", r.status, r.body)
	}
	r = send(t, srv, "PUT", "/_fake/organizations/"+org+"/import-sources/"+opImportHost, admin(srv), `{"suggested_plan":"gold"}`)
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("PUT a bad source = %d %s, want 422", r.status, r.body)
	}
	r = send(t, srv, "PUT", "/_fake/organizations/"+org+"/import-sources/"+opImportHost, admin(srv), `{"reachble":true}`)
	if r.status != http.StatusBadRequest {
		t.Errorf("PUT a misspelt field = %d %s, want 400", r.status, r.body)
	}
	e := &importEnv{srv: srv, c: srv.Client(), org: org}
	got, err := e.c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: org, Connection: e.conn()})
	if err != nil || !got.CanConnect || len(got.LintErrors) != 1 || got.LintErrors[0].ErrorDescription != "no key" {
		t.Errorf("test after the control PUT: %+v, %v", got, err)
	}
	mustDB(t, srv, "app")
	if err := e.c.DataImports.CreateNotification(t.Context(), &platform.CreateImportNotificationParams{Organization: org, Database: "app", MigrationID: "m", Event: "complete"}); err != nil {
		t.Fatal(err)
	}
	r = send(t, srv, "GET", "/_fake/organizations/"+org+"/databases/app/import-notifications", admin(srv), "")
	var list struct {
		Data []fake.ImportNotification `json:"data"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || r.status != http.StatusOK || len(list.Data) != 1 || list.Data[0].Event != "complete" {
		t.Errorf("GET notifications = %d %s", r.status, r.body)
	}
	r = send(t, srv, "GET", "/_fake/organizations/"+org+"/databases/nope/import-notifications", admin(srv), "")
	if r.status != http.StatusNotFound {
		t.Errorf("GET notifications of no database = %d, want 404", r.status)
	}
}

// TestSetImportSourceRefuses: SetImportSource refuses a source it could not
// answer from, naming what is wrong, and keeps what was set before.
func TestSetImportSourceRefuses(t *testing.T) {
	t.Parallel()
	lint := func(n int) []platform.DataImportLintError {
		out := make([]platform.DataImportLintError, n)
		for i := range out {
			out[i] = platform.DataImportLintError{LintError: "NO_PRIMARY_KEY"}
		}
		return out
	}
	tests := []struct {
		name, org, host string
		src             fake.ImportSource
		word            string
	}{
		{"no organization", "nope", opImportHost, fake.ImportSource{Reachable: true}, `no organization "nope"`},
		{"blank host", "", " ", fake.ImportSource{Reachable: true}, "not a host name"},
		{"long host", "", strings.Repeat("h", 256), fake.ImportSource{Reachable: true}, "not a host name"},
		{"bad plan", "", opImportHost, fake.ImportSource{SuggestedPlan: "gold"}, "suggested_plan"},
		{"negative pool", "", opImportHost, fake.ImportSource{MaxPoolSize: -1}, "max_pool_size"},
		{"huge pool", "", opImportHost, fake.ImportSource{MaxPoolSize: 1001}, "max_pool_size"},
		{"too many lint errors", "", opImportHost, fake.ImportSource{LintErrors: lint(101)}, "lint_errors has 101"},
		{"long connect error", "", opImportHost, fake.ImportSource{ConnectError: strings.Repeat("e", 4097)}, "connect_error"},
		{"long password", "", opImportHost, fake.ImportSource{Password: strings.Repeat("p", 4097)}, "password"},
		{"empty lint error", "", opImportHost, fake.ImportSource{LintErrors: []platform.DataImportLintError{{LintError: "X"}, {Table: "t"}}}, "lint_errors[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newImportEnv(t, fake.ImportSource{Reachable: true, Password: "p"})
			before := opWorldState(t, e.srv)
			org := tt.org
			if org == "" {
				org = e.org
			}
			err := e.srv.SetImportSource(org, tt.host, tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.word) {
				t.Errorf("SetImportSource = %v, want an error naming %s", err, tt.word)
			}
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("a refused SetImportSource changed the world (-before +after):\n%s", diff)
			}
			got, err := e.c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: e.org, Connection: e.conn()})
			if err != nil || !got.CanConnect {
				t.Errorf("the source set before = %+v, %v; want it kept", got, err)
			}
		})
	}
}

// TestSetImportSourceLimit: an organization holds at most 1,000 sources;
// the 1,001st is refused, while one already set may still be replaced.
func TestSetImportSourceLimit(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := srv.Org()
	for i := range 1000 {
		if err := srv.SetImportSource(org, fmt.Sprintf("h%d.example.com", i), fake.ImportSource{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.SetImportSource(org, "one-more.example.com", fake.ImportSource{Reachable: true}); err == nil || !strings.Contains(err.Error(), "already has 1000 sources") {
		t.Errorf("SetImportSource of the 1,001st = %v, want the limit named", err)
	}
	if err := srv.SetImportSource(org, "h7.example.com", fake.ImportSource{Reachable: true}); err != nil {
		t.Errorf("replacing a source at the limit: %v", err)
	}
	c := srv.Client()
	for host, want := range map[string]bool{"h7.example.com": true, "one-more.example.com": false} {
		got, err := c.DataImports.TestSource(t.Context(), &platform.TestDataImportSourceParams{Organization: org,
			Connection: platform.DataImportConnection{Hostname: host, Database: "legacy", Username: "u"}})
		if err != nil || got.CanConnect != want {
			t.Errorf("test of %s = %+v, %v; want can_connect %v", host, got, err, want)
		}
	}
}

// TestImportNotificationsKeepTheLast1000: a database keeps its last 1,000
// notifications, the oldest going first; ImportNotifications answers an
// empty list for a database that received none, and an error naming a
// missing organization or database.
func TestImportNotificationsKeepTheLast1000(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := srv.Org()
	mustDB(t, srv, "app")
	mustDB(t, srv, "quiet")
	// The first 1,000 come with a restored snapshot: posting them would
	// make the test slow.
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(snap, &m); err != nil {
		t.Fatal(err)
	}
	notes := make([]any, 1000)
	for i := range notes {
		notes[i] = map[string]any{"at": "2026-01-01T00:00:00Z", "migration_id": fmt.Sprintf("m%d", i), "event": "progress"}
	}
	m["data_imports"] = map[string]any{"notifications": []any{map[string]any{"database": mustDBID(t, srv, "app"), "notes": notes}}}
	if snap, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if err := srv.Client().DataImports.CreateNotification(t.Context(), &platform.CreateImportNotificationParams{Organization: org, Database: "app", MigrationID: "last", Event: "complete"}); err != nil {
		t.Fatal(err)
	}
	got, err := srv.ImportNotifications(org, "app")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1000 || got[0].MigrationID != "m1" || got[999].MigrationID != "last" {
		t.Errorf("%d notifications from %s to %s, want 1000 from m1 to last", len(got), got[0].MigrationID, got[len(got)-1].MigrationID)
	}
	if got, err := srv.ImportNotifications(org, "quiet"); err != nil || got == nil || len(got) != 0 {
		t.Errorf("notifications of a database that received none = %#v, %v; want an empty list", got, err)
	}
	if _, err := srv.ImportNotifications("nope", "app"); err == nil || !strings.Contains(err.Error(), `no organization "nope"`) {
		t.Errorf("ImportNotifications of no organization = %v", err)
	}
}
