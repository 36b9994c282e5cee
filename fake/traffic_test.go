package fake_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestRecordQueriesRefusals(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(time.Minute)
	good := fake.QuerySample{SQL: "SELECT 1"}
	for _, tc := range []struct {
		name          string
		org, db, br   string
		sample        fake.QuerySample
		wantInMessage string
	}{
		{"unknown organization", "nope", "app", "main", good, `no organization "nope"`},
		{"unknown database", "acme", "nope", "main", good, `no database "nope"`},
		{"unknown branch", "acme", "app", "nope", good, `no branch "nope"`},
		{"empty SQL", "acme", "app", "main", fake.QuerySample{SQL: " /* x */ "}, "samples[1]: the SQL is empty"},
		{"negative rows", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", RowsRead: -1}, "samples[1]: rows read"},
		{"negative duration", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Duration: -time.Second}, "samples[1]: the Duration -1s is negative"},
		{"shard queries", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", ShardQueries: -1}, "samples[1]: the ShardQueries"},
		{"code without error", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", ErrorCode: "1062"}, "samples[1]: an ErrorCode"},
		{"tablet type", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", TabletType: "leader"}, `samples[1]: the TabletType "leader"`},
		{"keyspace", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Keyspace: "nope"}, `samples[1]: keyspace "nope" is not a keyspace of branch main`},
		{"future", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Time: srv.Now().Add(time.Second)}, "samples[1]: the Time"},
		{"tag key", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tags: map[string]string{"a b": "x"}}, `samples[1]: tag key "a b"`},
		{"tag value", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tags: map[string]string{"route": ""}}, "samples[1]: the value of tag route"},
		{"long tag value", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tags: map[string]string{"route": strings.Repeat("x", 256)}}, "the value of tag route"},
		{"remote address", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tags: map[string]string{"remote_address": "here"}}, "remote_address"},
		{"fingerprint tag", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tags: map[string]string{"query_fingerprint": "x"}}, "query_fingerprint"},
		{"empty table", "acme", "app", "main", fake.QuerySample{SQL: "SELECT 1", Tables: []string{""}}, "samples[1]: the Tables[0] is empty"},
	} {
		before, err := srv.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		err = srv.RecordQueries(tc.org, tc.db, tc.br, good, tc.sample)
		if err == nil || !strings.Contains(err.Error(), tc.wantInMessage) || !strings.HasPrefix(err.Error(), "fake: RecordQueries: ") {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.wantInMessage)
		}
		after, err := srv.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: a refused recording changed the server's state", tc.name)
		}
	}
	// What is valid is recorded, and kept by a snapshot.
	err := srv.RecordQueries("acme", "app", "main", good, fake.QuerySample{
		SQL: "SELECT 2", Tags: map[string]string{"remote_address": "192.0.2.1", "username": "app"}, TabletType: platform.TabletRDOnly,
		Time: srv.Now(), Error: "boom", ErrorCode: "1105",
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := fake.QueryFingerprint("SELECT 2")
	for _, want := range []string{`"fingerprint": "` + fp + `"`, `"remote_address": "192.0.2.1"`, `"tablet_type": "rdonly"`, `"error_code": "1105"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the snapshot does not hold %s", want)
		}
	}
}

func TestControlRecordQueries(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(time.Minute)
	path := "/_fake/organizations/acme/databases/app/branches/main/queries"
	before, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{}`, http.StatusUnprocessableEntity, "samples is required"},
		{`{"samples":[]}`, http.StatusUnprocessableEntity, "samples is required"},
		{`{"samples":[{"sql":"SELECT 1","duration":"soon"}]}`, http.StatusBadRequest, "samples[0].duration"},
		{`{"samples":[{"sql":"SELECT 1","duration":"-1s"}]}`, http.StatusBadRequest, "samples[0].duration"},
		{`{"samples":[{"sql":"SELECT 1","rows":1}]}`, http.StatusBadRequest, "rows"},
		{`{"samples":[{"sql":"SELECT 1"},{"sql":""}]}`, http.StatusUnprocessableEntity, "samples[1]: the SQL is empty"},
		{`{"samples":[{"sql":"SELECT 1","keyspace":"nope"}]}`, http.StatusUnprocessableEntity, `keyspace \"nope\"`},
	} {
		r := send(t, srv, http.MethodPost, path, admin(srv), tc.body)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %d %s; want %d naming %s", tc.body, r.status, r.body, tc.status, tc.want)
		}
	}
	if after, _ := srv.Snapshot(); !bytes.Equal(before, after) {
		t.Error("refused recordings changed the server's state")
	}
	if r := send(t, srv, http.MethodPost, "/_fake/organizations/acme/databases/app/branches/nope/queries", admin(srv), `{"samples":[{"sql":"SELECT 1"}]}`); r.status != http.StatusUnprocessableEntity {
		t.Errorf("an unknown branch: %d %s, want 422", r.status, r.body)
	}
	at := srv.Now().Add(-time.Minute).Format(time.RFC3339Nano)
	body := `{"samples":[{"sql":"SELECT * FROM users WHERE id = 7","tags":{"route":"home"},"tablet_type":"replica","rows_read":3,` +
		`"rows_returned":1,"rows_affected":0,"shard_queries":2,"duration":"12ms","error":"","error_code":"","time":"` + at + `","tables":["users"],"keyspace":"app"}]}`
	if r := send(t, srv, http.MethodPost, path, admin(srv), body); r.status != http.StatusNoContent {
		t.Fatalf("recording: %d %s", r.status, r.body)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fp, normalized := fake.QueryFingerprint("SELECT * FROM users WHERE id = 1")
	for _, want := range []string{`"fingerprint": "` + fp + `"`, `"normalized_sql": "` + normalized + `"`, `"duration": 12000000`, `"shard_queries": 2`, `"route": "home"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the snapshot does not hold %s", want)
		}
	}
}
