package fake_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// diffOf is the diff a table's raw and html show, for expectations.
func diffOf(name, raw string) *platform.TableDiff {
	return &platform.TableDiff{Name: name, Raw: raw, HTML: "<pre>" + raw + "</pre>"}
}

// drChangeDiff is the diff of drChange against drBase: orders created,
// users altered.
var drChangeDiff = &platform.SchemaDiff{Tables: []*platform.TableDiff{
	diffOf("orders", "+CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))\n"),
	diffOf("users", "-CREATE TABLE `users` (id bigint NOT NULL, PRIMARY KEY (id))\n"+
		"+CREATE TABLE `users` (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))\n"),
}}

func TestDiffBranch(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.branch("lean", "DROP TABLE audit")
	e.branch("same")
	tests := []struct {
		branch string
		want   *platform.SchemaDiff
	}{
		{branch: "dev", want: drChangeDiff},
		{branch: "lean", want: &platform.SchemaDiff{Tables: []*platform.TableDiff{
			diffOf("audit", "-CREATE TABLE `audit` (id bigint NOT NULL, PRIMARY KEY (id))\n"),
		}}},
		{branch: "same", want: &platform.SchemaDiff{Tables: []*platform.TableDiff{}}},
	}
	for _, tt := range tests {
		t.Run(tt.branch, func(t *testing.T) {
			got, err := e.c.Branches.Diff(t.Context(), &platform.DiffBranchParams{Organization: e.org, Database: drDB, Branch: tt.branch})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diff of %s (-want +got):\n%s", tt.branch, diff)
			}
		})
	}
}

func TestDiffBranchRefusals(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	tests := []struct {
		name, branch string
		status       int
		words        []string
	}{
		{name: "no parent", branch: "main", status: http.StatusUnprocessableEntity, words: []string{"main", "no parent"}},
		{name: "unknown branch", branch: "nope", status: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.c.Branches.Diff(t.Context(), &platform.DiffBranchParams{Organization: e.org, Database: drDB, Branch: tt.branch})
			apiError(t, err, tt.status, tt.words...)
		})
	}
	// A branch whose parent was deleted has nothing to compare with.
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "child", ParentBranch: "dev"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Branches.Diff(t.Context(), &platform.DiffBranchParams{Organization: e.org, Database: drDB, Branch: "child"})
	apiError(t, err, http.StatusUnprocessableEntity, "dev", "no longer exists")
}

// TestDeployRequestDiff follows a deploy request's diff through its
// lifecycle: the branches' difference until the check lists the
// deployment's operations, then those operations, which stay its diff
// after the deployment has made main like dev.
func TestDeployRequestDiff(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	get := func(t *testing.T) *platform.SchemaDiff {
		t.Helper()
		got, err := e.c.DeployRequests.Diff(t.Context(), &platform.GetDeployRequestDiffParams{Organization: e.org, Database: drDB, Number: dr.Number})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if diff := cmp.Diff(drChangeDiff, get(t)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	// Before the check, the diff follows the head branch.
	if err := e.srv.PushSchema(e.org, drDB, "dev", "DROP TABLE orders"); err != nil {
		t.Fatal(err)
	}
	onlyUsers := &platform.SchemaDiff{Tables: drChangeDiff.Tables[1:]}
	if diff := cmp.Diff(onlyUsers, get(t)); diff != "" {
		t.Errorf("pending after a push (-want +got):\n%s", diff)
	}
	e.takeSteps(dr, toPendingRevert)
	if st := e.state(dr.Number); st != platform.DeploymentCompletePendingRevert {
		t.Fatalf("deployment %s, want complete_pending_revert", st)
	}
	if diff := cmp.Diff(onlyUsers, get(t)); diff != "" {
		t.Errorf("deployed (-want +got):\n%s", diff)
	}
	branch, err := e.c.Branches.Diff(t.Context(), &platform.DiffBranchParams{Organization: e.org, Database: drDB, Branch: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&platform.SchemaDiff{Tables: []*platform.TableDiff{}}, branch); diff != "" {
		t.Errorf("dev against main after the deployment (-want +got):\n%s", diff)
	}
	_, err = e.c.DeployRequests.Diff(t.Context(), &platform.GetDeployRequestDiffParams{Organization: e.org, Database: drDB, Number: 99})
	apiError(t, err, http.StatusNotFound)
}

// TestDiffFromBase checks that a branch's diff, its deploy request's diff
// before the check and its storage check hold the branch's own changes
// since the schema it started from (its parent's when it was created, the
// backup's when it was restored from one): a table main got since is not
// dropped. A branch that records no base (from an older snapshot) diffs
// against main as it is.
func TestDiffFromBase(t *testing.T) {
	t.Parallel()
	const (
		shipped = "CREATE TABLE `a_t` (id bigint NOT NULL, PRIMARY KEY (id))"
		own     = "CREATE TABLE `b_t` (id bigint NOT NULL, PRIMARY KEY (id))"
	)
	e := newDREnv(t, false)
	w := &opWorld{drEnv: e}
	backup := w.backup("main")
	e.branch("a", shipped)
	e.branch("stale", own)
	e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "a", AutoCutover: platform.Ptr(true)}), then(toQueued, adv(13*time.Second), act("skip-revert")))
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "restored", BackupID: backup, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	stale := e.open(platform.CreateDeployRequestParams{Branch: "stale"})

	ownDiff := &platform.SchemaDiff{Tables: []*platform.TableDiff{diffOf("b_t", "+"+own+"\n")}}
	twoWay := &platform.SchemaDiff{Tables: []*platform.TableDiff{diffOf("a_t", "-"+shipped+"\n"), diffOf("b_t", "+"+own+"\n")}}
	diffs := func(t *testing.T, c *platform.Client) map[string]*platform.SchemaDiff {
		t.Helper()
		out := map[string]*platform.SchemaDiff{}
		for _, b := range []string{"stale", "restored"} {
			d, err := c.Branches.Diff(t.Context(), &platform.DiffBranchParams{Organization: e.org, Database: drDB, Branch: b})
			if err != nil {
				t.Fatal(err)
			}
			out["branch "+b] = d
		}
		d, err := c.DeployRequests.Diff(t.Context(), &platform.GetDeployRequestDiffParams{Organization: e.org, Database: drDB, Number: stale.Number})
		if err != nil {
			t.Fatal(err)
		}
		out["deploy request"] = d
		return out
	}
	want := map[string]*platform.SchemaDiff{
		"branch stale": ownDiff, "deploy request": ownDiff,
		"branch restored": {Tables: []*platform.TableDiff{}},
	}
	if diff := cmp.Diff(want, diffs(t, e.c)); diff != "" {
		t.Errorf("diffs from the base (-want +got):\n%s", diff)
	}
	if got := e.storageOf(stale.Number); got.StorageBytesNeeded != 0 || len(got.StorageReport) != 1 {
		t.Errorf("storage check of a creation: needs %d bytes, reports %d keyspaces; want 0 and app", got.StorageBytesNeeded, len(got.StorageReport))
	}

	// The same world from a snapshot without the branches' bases.
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	data = snapshotEdit(t, data, func(m map[string]any) {
		for i := range m["branches"].([]any) {
			delete(snapshotRecord(m, "branches", i), "base")
		}
	})
	old := fake.NewServer(t)
	if err := old.Restore(data); err != nil {
		t.Fatal(err)
	}
	want = map[string]*platform.SchemaDiff{
		"branch stale": twoWay, "deploy request": twoWay,
		"branch restored": {Tables: []*platform.TableDiff{diffOf("a_t", "-"+shipped+"\n")}},
	}
	if diff := cmp.Diff(want, diffs(t, old.Client())); diff != "" {
		t.Errorf("diffs without a base (-want +got):\n%s", diff)
	}
}

func TestRefreshBranchSchema(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev")
	p := &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}
	before, err := e.c.Branches.Get(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)
	if err := e.c.Branches.RefreshSchema(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	after, err := e.c.Branches.Get(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := after.SchemaLastUpdatedAt.Time, e.srv.Now(); !got.Equal(want) {
		t.Errorf("schema_last_updated_at %v, want %v", got, want)
	}
	after.SchemaLastUpdatedAt = before.SchemaLastUpdatedAt
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("refresh changed more than schema_last_updated_at (-before +after):\n%s", diff)
	}

	// A pending branch has no schema to read yet; the refusal changes nothing.
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "fresh", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	fresh := &platform.GetBranchParams{Organization: e.org, Database: drDB, Branch: "fresh"}
	was, err := e.c.Branches.Get(t.Context(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	apiError(t, e.c.Branches.RefreshSchema(t.Context(), fresh), http.StatusUnprocessableEntity, "fresh", "not ready")
	now, err := e.c.Branches.Get(t.Context(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(was, now); diff != "" {
		t.Errorf("refused refresh changed the branch (-before +after):\n%s", diff)
	}
}
