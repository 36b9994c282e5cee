package platform_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// vrepServer answers every request with the golden file named, and
// records the last request's method, path, query and body.
type vrepServer struct {
	last struct{ method, path, query, body string }
}

func (v *vrepServer) client(t *testing.T, golden string) *platform.Client {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "golden", golden))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v.last.method, v.last.path, v.last.query, v.last.body = r.Method, r.URL.Path, r.URL.RawQuery, string(b)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(ts.Close)
	c, err := platform.NewClient(platform.WithBaseURL(ts.URL), platform.WithServiceToken("id", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMaterializeDecode checks the requests the Materialize methods send
// and the typed results they read from the golden documents.
func TestMaterializeDecode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const base = "/v1/organizations/o/databases/d/branches/b/materialize/workflows"
	var v vrepServer
	c := v.client(t, "vreplication_workflow_show.json")
	show, err := c.Vitess.GetMaterialize(ctx, &platform.GetMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "customer_copy", TargetKeyspace: "customers", IncludeLogs: platform.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if v.last.method != "GET" || v.last.path != base+"/customer_copy" || v.last.query != "include_logs=false&target_keyspace=customers" {
		t.Errorf("request = %+v", v.last)
	}
	wf := show.Workflow
	var streams []string
	for _, s := range wf.Streams {
		streams = append(streams, s.Shard+" "+s.State+" "+s.Message+" "+s.Tablet)
	}
	want := []string{"-80 Stopped Stopped after copy us-east-1234000001", "80- Copying  us-east-1234001001"}
	if diff := cmp.Diff(want, streams); diff != "" || wf.Name != "customer_copy" || wf.Type != platform.VReplicationMaterialize || wf.SourceKeyspace != "commerce" || wf.TargetKeyspace != "customers" {
		t.Errorf("workflow = %+v; streams (-want +got):\n%s", wf, diff)
	}
	if !strings.HasPrefix(string(show.Raw), `{`) || !strings.Contains(string(show.Raw), `"workflows"`) {
		t.Errorf("Raw = %s", show.Raw)
	}

	c = v.client(t, "workflow_delete.json")
	del, err := c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "customer_copy", TargetKeyspace: "customers", KeepData: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v.last.path != base+"/customer_copy/cancel" || v.last.body != `{"target_keyspace":"customers","keep_data":true}` {
		t.Errorf("request = %+v", v.last)
	}
	wantDel := []platform.WorkflowDeleteDetail{{Tablet: "us-east-1234000001", Deleted: true}, {Tablet: "us-east-1234001001"}}
	if diff := cmp.Diff(wantDel, del.Details); diff != "" || !strings.Contains(del.Summary, "cancelled") {
		t.Errorf("delete = %+v; details (-want +got):\n%s", del, diff)
	}

	c = v.client(t, "vreplication_summary.json")
	created, err := c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "customer_copy",
		TargetKeyspace: "customers", SourceKeyspace: "commerce", TableSettings: []platform.MaterializeTableSettings{{TargetTable: "customer", CreateDDL: "copy"}},
		StopAfterCopy: platform.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	wantBody := `{"workflow":"customer_copy","target_keyspace":"customers","source_keyspace":"commerce","table_settings":[{"target_table":"customer","create_ddl":"copy"}],"stop_after_copy":false}`
	if v.last.method != "POST" || v.last.path != base || v.last.body != wantBody {
		t.Errorf("request = %+v, want body %s", v.last, wantBody)
	}
	if !strings.HasPrefix(created.Summary, "Materialization workflow customer_copy") {
		t.Errorf("summary = %q", created.Summary)
	}
}

// TestVReplicationShowEmpty checks that a show whose document holds no
// workflow is ErrNotFound.
func TestVReplicationShowEmpty(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"data":{}}`) }))
	defer ts.Close()
	c, err := platform.NewClient(platform.WithBaseURL(ts.URL), platform.WithServiceToken("id", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Vitess.GetMaterialize(t.Context(), &platform.GetMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w", TargetKeyspace: "k"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("GetMaterialize = %v, want ErrNotFound", err)
	}
	if _, err := c.Vitess.GetLookupVindex(t.Context(), &platform.GetLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "v", TableKeyspace: "k"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("GetLookupVindex = %v, want ErrNotFound", err)
	}
}

// TestVReplicationArgs checks the arguments refused before any request,
// naming the argument.
func TestVReplicationArgs(t *testing.T) {
	t.Parallel()
	c, err := platform.NewClient(platform.WithBaseURL("http://127.0.0.1:1"), platform.WithServiceToken("id", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cases := []struct {
		name string
		call func() error
		arg  string
	}{
		{"create without a workflow", func() error {
			_, err := c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{Organization: "o", Database: "d", Branch: "b", TargetKeyspace: "t", SourceKeyspace: "s", ReferenceTables: []string{"x"}})
			return err
		}, "workflow"},
		{"create without tables", func() error {
			_, err := c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w", TargetKeyspace: "t", SourceKeyspace: "s"})
			return err
		}, "table_settings"},
		{"show without a target keyspace", func() error {
			_, err := c.Vitess.GetMaterialize(ctx, &platform.GetMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w"})
			return err
		}, "target_keyspace"},
		{"start without a workflow", func() error {
			_, err := c.Vitess.StartMaterialize(ctx, &platform.StartMaterializeParams{Organization: "o", Database: "d", Branch: "b", TargetKeyspace: "t"})
			return err
		}, "workflow"},
		{"cancel without a target keyspace", func() error {
			_, err := c.Vitess.CancelMaterialize(ctx, &platform.CancelMaterializeParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w"})
			return err
		}, "target_keyspace"},
		{"lookup create without a table keyspace", func() error {
			_, err := c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "v"})
			return err
		}, "table_keyspace"},
		{"externalize without a name", func() error {
			_, err := c.Vitess.ExternalizeLookupVindex(ctx, &platform.ExternalizeLookupVindexParams{Organization: "o", Database: "d", Branch: "b", TableKeyspace: "t"})
			return err
		}, "name"},
		{"complete without a table keyspace", func() error {
			_, err := c.Vitess.CompleteLookupVindex(ctx, &platform.CompleteLookupVindexParams{Organization: "o", Database: "d", Branch: "b", Name: "v"})
			return err
		}, "table_keyspace"},
		{"cancel without a branch", func() error {
			_, err := c.Vitess.CancelLookupVindex(ctx, &platform.CancelLookupVindexParams{Organization: "o", Database: "d", Name: "v", TableKeyspace: "t"})
			return err
		}, "branch"},
	}
	for _, tc := range cases {
		var argErr *platform.ArgError
		if err := tc.call(); !errors.As(err, &argErr) || argErr.Arg != tc.arg {
			t.Errorf("%s: err = %v, want an ArgError of %s", tc.name, err, tc.arg)
		}
	}
}

// TestWaitMaterialize runs WaitMaterialize against the fake: its polls
// move the fake's clock to the end of the copy, and a workflow stopped
// before its copy ends the wait with a StateError.
func TestWaitMaterialize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		stopAfterCopy bool
		stop          bool // stop the streams before waiting
		want          string
		wantState     string // the StateError's state; "" for none
	}{
		{name: "runs on", want: "Running"},
		{name: "stops after its copy", stopAfterCopy: true, want: "Stopped Stopped after copy"},
		{name: "stopped while copying", stop: true, wantState: platform.VReplicationStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			srv := fake.NewServer(t)
			client := srv.Client()
			org := srv.Org()
			if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "shop", ClusterSize: "PS_10"}); err != nil {
				t.Fatal(err)
			}
			srv.Advance(time.Minute)
			if err := srv.AddKeyspace(org, "shop", "main", "copies", 2); err != nil {
				t.Fatal(err)
			}
			if err := srv.PushSchema(org, "shop", "main", "CREATE TABLE shop.customer (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
				t.Fatal(err)
			}
			start := srv.Now()
			if _, err := client.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{
				Organization: org, Database: "shop", Branch: "main", Workflow: "customer_copy", TargetKeyspace: "copies", SourceKeyspace: "shop",
				TableSettings: []platform.MaterializeTableSettings{{TargetTable: "customer", CreateDDL: "copy"}}, StopAfterCopy: platform.Ptr(tt.stopAfterCopy),
			}); err != nil {
				t.Fatal(err)
			}
			if tt.stop {
				if _, err := client.Vitess.StopMaterialize(ctx, &platform.MaterializeActionParams{Organization: org, Database: "shop", Branch: "main", Workflow: "customer_copy", TargetKeyspace: "copies"}); err != nil {
					t.Fatal(err)
				}
			}
			show, err := client.Vitess.WaitMaterialize(ctx, &platform.GetMaterializeParams{Organization: org, Database: "shop", Branch: "main", Workflow: "customer_copy", TargetKeyspace: "copies"})
			if tt.wantState != "" {
				var se *platform.StateError
				if !errors.As(err, &se) || se.State != tt.wantState {
					t.Fatalf("WaitMaterialize = %v, want a StateError in %s", err, tt.wantState)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range show.Workflow.Streams {
				got = append(got, strings.TrimSpace(s.State+" "+s.Message))
			}
			if diff := cmp.Diff([]string{tt.want, tt.want}, got); diff != "" {
				t.Errorf("streams after the wait (-want +got):\n%s", diff)
			}
			if waited, want := srv.Now().Sub(start), fake.DefaultTimings().VReplicationCopy; waited != want {
				t.Errorf("the wait moved the clock by %s, want the copy's %s", waited, want)
			}
		})
	}
}
