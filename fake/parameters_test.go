package fake

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
)

// These tests are inside the package: validateParameter is what the
// operations that change a branch's configuration check values with.

func TestValidateParameter(t *testing.T) {
	t.Parallel()
	pg := platform.KindPostgreSQL
	for _, tc := range []struct {
		name, value string
		says        string // "" when the value is accepted
	}{
		{"max_connections", "500", ""},
		{"max_connections", "25", ""},
		{"max_connections", "5000", ""},
		{"max_connections", "24", "out of range: it must be from 25 to 5000"},
		{"max_connections", "5001", "out of range"},
		{"max_connections", "lots", "not an integer"},
		{"max_connections", "1.5", "not an integer"},
		{"work_mem", "64kB", ""},
		{"work_mem", "2GB", ""},
		{"work_mem", "65536", ""},
		{"work_mem", "32kB", "must be from 64kB to 2GB"},
		{"work_mem", "3GB", "out of range"},
		{"work_mem", "4 MB", ""},
		{"work_mem", "4mb", "not a size"},
		{"work_mem", "MB", "not a size"},
		{"statement_timeout", "30s", ""},
		{"statement_timeout", "5min", ""},
		{"statement_timeout", "1500ms", ""},
		{"statement_timeout", "2d", "out of range"},
		{"statement_timeout", "soon", "not a duration"},
		{"random_page_cost", "1.1", ""},
		{"random_page_cost", "-1", "out of range"},
		{"random_page_cost", "cheap", "not a number"},
		{"random_page_cost", "NaN", "not a number"},
		{"random_page_cost", "-Inf", "not a number"},
		{"jit", "off", ""},
		{"jit", "TRUE", ""},
		{"jit", "maybe", "not on or off"},
		{"default_transaction_isolation", "serializable", ""},
		{"default_transaction_isolation", "snapshot", "one of serializable, repeatable read, read committed, read uncommitted"},
		{"pool_mode", "session", ""},
		{"pool_mode", "Session", "not one of"},
		{"timezone", "Europe/Paris", ""},
		{"timezone", " ", "non-empty"},
		{"shared_preload_libraries", "pg_stat_statements", ""},
		{"shared_preload_libraries", "", ""},
		{"shared_preload_libraries", "pg_stat_statements, vector", `"vector" is not an extension loaded at start`},
		{"shared_preload_libraries", "nope", `"nope" is not an extension`},
		{"shared_preload_libraries", "pg_cron", "pg_cron is unavailable: container_upgrade_required"},
		{"pg_stat_statements.max", "10000", ""},
		{"pg_stat_statements.max", "99", "out of range"},
		{"auto_explain.log_min_duration", "-1", ""},
		{"maximum_lag_on_failover", "1GB", ""},
		{"synchronous_mode", "on", ""},
		{"wal_level", "replica", "parameter wal_level cannot be changed"},
		{"no_such_thing", "1", `parameter "no_such_thing" is not a cluster parameter of postgresql databases`},
	} {
		err := validateParameter(pg, tc.name, tc.value)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%s = %q: %v, want it accepted", tc.name, tc.value, err)
		case tc.says != "" && err == nil:
			t.Errorf("%s = %q accepted, want %q", tc.name, tc.value, tc.says)
		case tc.says != "":
			e, ok := err.(*apiError)
			if !ok || e.status != 422 || !strings.Contains(e.message, tc.says) || !strings.Contains(e.message, tc.name) {
				t.Errorf("%s = %q: %v, want a 422 naming the parameter and saying %q", tc.name, tc.value, err, tc.says)
			}
		}
	}
	if err := validateParameter(platform.KindMySQL, "max_connections", "100"); err == nil || !strings.Contains(err.Error(), "mysql") {
		t.Errorf("a mysql database's parameter: %v, want a refusal naming mysql", err)
	}
}

// TestParameterCatalogue checks the catalogue's own consistency: every
// default is a value the parameter accepts (immutable ones aside), names
// and IDs are unique, and extension parameters name an extension.
func TestParameterCatalogue(t *testing.T) {
	t.Parallel()
	ids := map[string]string{}
	for _, p := range postgresParams {
		if !p.immutable {
			if err := validateParameter(platform.KindPostgreSQL, p.name, p.def); err != nil {
				t.Errorf("default of %s: %v", p.name, err)
			}
		}
		if (p.typ == platform.ParameterSelect) != (len(p.options) > 0) {
			t.Errorf("%s: options %v for a %s parameter", p.name, p.options, p.typ)
		}
		if p.ext != "" && extByName[p.ext] == nil {
			t.Errorf("%s configures the unknown extension %q", p.name, p.ext)
		}
		id := catalogueID("prm", p.name)
		if other, ok := ids[id]; ok || len(id) != 12 {
			t.Errorf("%s: ID %q (%d characters) already given to %s", p.name, id, len(id), other)
		}
		ids[id] = p.name
	}
	if len(paramByName) != len(postgresParams) || len(extByName) != len(postgresExtensions) {
		t.Error("duplicate names in the catalogues")
	}
}

// FuzzValidateParameter checks that any name and value are answered
// without a panic, and that a value accepted for a numeric parameter is of
// its type and within its bounds.
func FuzzValidateParameter(f *testing.F) {
	for _, p := range postgresParams {
		f.Add(p.name, p.def)
	}
	f.Add("work_mem", "-1kB")
	f.Add("statement_timeout", "99999999999999999999d")
	f.Add("max_connections", "1e3")
	f.Add("random_page_cost", "NaN")
	f.Fuzz(func(t *testing.T, name, value string) {
		err := validateParameter(platform.KindPostgreSQL, name, value)
		if err == nil {
			p := paramByName[name]
			if p == nil || p.immutable {
				t.Fatalf("%s = %q accepted for a parameter that cannot take it", name, value)
			}
			if p.min < p.max && (p.typ == platform.ParameterInteger || p.typ == platform.ParameterFloat) {
				v, perr := strconv.ParseFloat(value, 64)
				if perr != nil || !(v >= p.min && v <= p.max) {
					t.Fatalf("%s = %q accepted outside %g..%g", name, value, p.min, p.max)
				}
			}
			return
		}
		if e, ok := err.(*apiError); !ok || e.status != 422 {
			t.Fatalf("%s = %q: %v, want a 422", name, value, err)
		}
	})
}
