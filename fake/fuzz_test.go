package fake_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// A fuzz target shares one server across its inputs (a server per input
// costs a listener, and fuzzing wants thousands of inputs a second). The
// invariants checked hold in any state the server can reach, and each input
// is checked against the state it found: the request log is cleared before
// it, and a database it creates is deleted after it.

// codeOf is the error code that goes with a status.
var codeOf = map[int]string{
	http.StatusBadRequest:            "bad_request",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusNotFound:              "not_found",
	http.StatusRequestEntityTooLarge: "payload_too_large",
	http.StatusUnprocessableEntity:   "unprocessable",
}

// checkResponse checks what every response must have: a request ID, no
// 5xx, and on an error the API's JSON error body.
func checkResponse(t *testing.T, rec *httptest.ResponseRecorder) errorBody {
	t.Helper()
	if rec.Header().Get("X-Request-Id") == "" {
		t.Errorf("status %d without X-Request-Id", rec.Code)
	}
	if rec.Code >= 500 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if rec.Code < 400 {
		if ct := rec.Header().Get("Content-Type"); ct == "application/json" && !json.Valid(rec.Body.Bytes()) {
			t.Errorf("status %d with a JSON content type and a body that is not JSON: %q", rec.Code, rec.Body)
		}
		return errorBody{}
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("status %d with Content-Type %q", rec.Code, ct)
	}
	var e errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("status %d with a body that is not a JSON error: %q", rec.Code, rec.Body)
	}
	if e.Code == "" || e.Message == "" {
		t.Errorf("status %d with error body %q: want a code and a message", rec.Code, rec.Body)
	}
	return e
}

// FuzzRouting sends requests with any method, path and query, with or
// without the admin token, straight to the server's handler.
func FuzzRouting(f *testing.F) {
	for _, s := range []struct {
		method, path, query string
		auth                bool
	}{
		{"GET", "/v1/organizations", "", true},
		{"GET", "/v1/organizations/acme", "", false},
		{"PATCH", "/v1/organizations/acme", "", true},
		{"GET", "/v1/organizations/acme/members", "q=ada&page=2&per_page=1", true},
		{"DELETE", "/v1/organizations/acme/members/x", "delete_service_tokens=true", true},
		{"GET", "/v1/organizations/acme/databases", "q=a&order=desc&per_page=100", true},
		{"POST", "/v1/organizations/acme/databases", "", true},
		{"DELETE", "/v1/organizations/acme/databases/app", "", true},
		{"GET", "/v1/organizations/acme/databases/app/regions", "page=0", true},
		{"GET", "/v1/regions", "per_page=101", false},
		{"GET", "/v1/user", "", true},
		{"PUT", "/v1/organizations", "", true},
		{"GET", "/v1//organizations/../acme", "", true},
		{"GET", "/v1/organizations/%2e%2e/acme", "", true},
		{"OPTIONS", "*", "", false},
		{"POST", "/_fake/advance", "d=1h", true},
		{"BREW", "/v1/organizations/acme/databases/%00", "page=%zz", true},
		{"GET", "/v1/organizations/acme/audit-log", "limit=100&starting_after=zzzzzzzzzzzz&filters[]=audit_action:database.created", true},
		{"GET", "/v1/organizations/acme/audit-log", "ending_before=000000000000&filters[]=audit_action&limit=-1", true},
	} {
		f.Add(s.method, s.path, s.query, s.auth)
	}
	srv := fake.NewServer(f)
	f.Fuzz(func(t *testing.T, method, path, query string, auth bool) {
		if strings.ContainsAny(method+path+query, "\r\n") {
			return // would add header lines, not change the request line
		}
		srv.ClearRequests()
		target := path
		if query != "" {
			target += "?" + query
		}
		raw := method + " " + target + " HTTP/1.1\r\nHost: fake.test\r\n"
		if auth {
			raw += "Authorization: " + srv.AdminToken().Authorization() + "\r\n"
		}
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw + "\r\n")))
		if err != nil {
			return // not a request a server would hand to its handler
		}
		req = req.WithContext(t.Context())
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		e := checkResponse(t, rec)
		if want, ok := codeOf[rec.Code]; ok && e.Code != want {
			t.Errorf("status %d with code %q, want %q", rec.Code, e.Code, want)
		}
		if rec.Code >= 300 && rec.Code < 400 && rec.Header().Get("Location") == "" {
			t.Errorf("status %d without Location", rec.Code)
		}
		if !auth && rec.Code < 300 && !strings.HasPrefix(req.URL.Path, "/v1/regions") {
			t.Errorf("%s %s answered %d without credentials", method, target, rec.Code)
		}
		log := srv.Requests()
		if len(log) != 1 || log[0].RequestID != rec.Header().Get("X-Request-Id") || log[0].Status != rec.Code {
			t.Errorf("request log %+v for a %d with request ID %s", log, rec.Code, rec.Header().Get("X-Request-Id"))
		}
	})
}

// slugRE is the form of a database name.
var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzCreateDatabaseBody posts any body to create_database.
func FuzzCreateDatabaseBody(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`null`,
		`{"name":"app","cluster_size":"PS_10"}`,
		`{"name":"app","cluster_size":"PS_10","region":"eu-west","kind":"postgresql","replicas":2,"major_version":"17","storage":{"minimum_storage_bytes":1,"maximum_storage_bytes":2}}`,
		`{"name":"App","cluster_size":"PS_10"}`,
		`{"name":"app","cluster_size":"PS_10","replicas":-1}`,
		`{"name":"app","cluster_size":"PS_10","kind":"oracle"}`,
		`{"name":"app","cluster_size":"PS_10","region":"mars"}`,
		`{"name":5}`,
		`{"name":"app","cluster_size":"PS_10"}}`,
		`{"name":"app","cluster_size":"PS_10"} {}`,
		`[{"name":"app"}]`,
		`{"name":"app","cluster_size":"PS_10","unknown":[1,{"x":null}]}`,
		`{"name":"\u00e9","cluster_size":"PS_10"}`,
		"{\"name\":\"a\xffb\",\"cluster_size\":\"PS_10\"}",
		`{"storage":{"minimum_storage_bytes":1e400}}`,
	} {
		f.Add([]byte(s))
	}
	// No seed is near the 1 MiB limit: the fuzzer minimizes every input that
	// finds new code, and minimizing a megabyte stalls it for the whole run.
	// decode_test.go covers the limit.
	srv := fake.NewServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequestWithContext(t.Context(), "POST", "/v1/organizations/acme/databases", bytes.NewReader(body))
		req.Header.Set("Authorization", srv.AdminToken().Authorization())
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		e := checkResponse(t, rec)

		switch rec.Code {
		case http.StatusCreated:
			var db struct {
				Name, State string
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &db); err != nil {
				t.Fatal(err)
			}
			defer func() {
				del := httptest.NewRequestWithContext(t.Context(), "DELETE", "/v1/organizations/acme/databases/"+db.Name, nil)
				del.Header.Set("Authorization", srv.AdminToken().Authorization())
				drec := httptest.NewRecorder()
				srv.ServeHTTP(drec, del)
				if drec.Code != http.StatusNoContent {
					t.Fatalf("deleting %s: %d %s", db.Name, drec.Code, drec.Body)
				}
			}()
			if !slugRE.MatchString(db.Name) || len(db.Name) > 63 || db.State != "pending" {
				t.Errorf("created a database named %q in state %q", db.Name, db.State)
			}
			if len(body) > 1<<20 {
				t.Errorf("accepted a body of %d bytes", len(body))
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			if e.Code != codeOf[rec.Code] {
				t.Errorf("status %d with code %q", rec.Code, e.Code)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if trimmed := bytes.TrimSpace(body); len(body) <= 1<<20 && len(trimmed) > 0 && !json.Valid(trimmed) && rec.Code != http.StatusBadRequest {
			t.Errorf("a body that is not JSON got %d: %s", rec.Code, rec.Body)
		}

		// On failure nothing was created; on success exactly one database.
		list := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/organizations/acme/databases", nil)
		list.Header.Set("Authorization", srv.AdminToken().Authorization())
		lrec := httptest.NewRecorder()
		srv.ServeHTTP(lrec, list)
		var page struct {
			TotalCount int `json:"total_count"`
		}
		if err := json.Unmarshal(lrec.Body.Bytes(), &page); err != nil || lrec.Code != http.StatusOK {
			t.Fatalf("listing databases: %d %s", lrec.Code, lrec.Body)
		}
		want := 0
		if rec.Code == http.StatusCreated {
			want = 1
		}
		if page.TotalCount != want {
			t.Errorf("status %d left %d databases, want %d", rec.Code, page.TotalCount, want)
		}
	})
}

// FuzzCIDRs sends two list entries of any text as the cidrs of a new IP
// restriction entry (IPv4 only) and of a new branch password (IPv4 or
// IPv6): each is created with every entry a canonical range of the right
// family, or refused with a 422 that creates nothing; never a 5xx.
func FuzzCIDRs(f *testing.F) {
	for _, s := range [][2]string{
		{"192.0.2.0/24", "198.51.100.7"},
		{"10.0.0.0/8", "10.0.0.0/8"},
		{"10.1.2.3/8", ""},
		{"2001:db8::/32", "::1"},
		{"fe80::1%eth0", "0.0.0.0/0"},
		{"10.0.0.300", "1.2.3.4/33"},
		{"::ffff:192.0.2.1", "192.0.2.1/32"},
		{" 10.0.0.0/8", "010.0.0.1"},
	} {
		f.Add(s[0], s[1])
	}
	srv := fake.NewServer(f)
	for name, kind := range map[string]platform.DatabaseKind{"pg": platform.KindPostgreSQL, "shop": platform.KindMySQL} {
		if _, err := srv.Client().Databases.Create(f.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: name, ClusterSize: "PS_10", Kind: kind}); err != nil {
			f.Fatal(err)
		}
	}
	do := func(t *testing.T, method, path string, body any) *httptest.ResponseRecorder {
		buf, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequestWithContext(t.Context(), method, path, bytes.NewReader(buf))
		req.Header.Set("Authorization", srv.AdminToken().Authorization())
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		checkResponse(t, rec)
		return rec
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, target := range []struct {
			path     string
			ipv4Only bool
		}{
			{"/v1/organizations/acme/databases/pg/cidrs", true},
			{"/v1/organizations/acme/databases/shop/branches/main/passwords", false},
		} {
			rec := do(t, "POST", target.path, map[string]any{"cidrs": []string{a, b}})
			switch rec.Code {
			case http.StatusCreated:
				var out struct {
					ID    string   `json:"id"`
					CIDRs []string `json:"cidrs"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
					t.Fatal(err)
				}
				if len(out.CIDRs) != 2 {
					t.Errorf("%s: created with cidrs %q from %q", target.path, out.CIDRs, []string{a, b})
				}
				for _, c := range out.CIDRs {
					p, err := netip.ParsePrefix(c)
					if err != nil {
						var addr netip.Addr
						if addr, err = netip.ParseAddr(c); err == nil {
							p = netip.PrefixFrom(addr, addr.BitLen())
						}
					}
					if err != nil || p.Masked() != p || (target.ipv4Only && !p.Addr().Is4()) {
						t.Errorf("%s: accepted %q from %q", target.path, c, []string{a, b})
					}
				}
				if del := do(t, "DELETE", target.path+"/"+out.ID, nil); del.Code != http.StatusNoContent {
					t.Fatalf("deleting %s: %d %s", out.ID, del.Code, del.Body)
				}
			case http.StatusUnprocessableEntity:
			default:
				t.Fatalf("%s: status %d: %s", target.path, rec.Code, rec.Body)
			}
			var page struct {
				TotalCount int `json:"total_count"`
			}
			if list := do(t, "GET", target.path, nil); json.Unmarshal(list.Body.Bytes(), &page) != nil || page.TotalCount != 0 {
				t.Errorf("%s: %d left after the input, want none: %s", target.path, page.TotalCount, list.Body)
			}
		}
	})
}
