package fake

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbplatform/platform-go"
)

// paramSpec is a cluster parameter of the catalogue: what it accepts and
// its default. Numeric bounds apply when min < max; for bytes and seconds
// parameters they are in bytes and seconds.
type paramSpec struct {
	name, displayName string
	namespace         platform.ParameterNamespace
	category          string
	description       string
	typ               platform.ParameterType
	def               string
	min, max          float64
	options           []string
	restart           bool
	immutable         bool
	required          bool
	// ext is the extension the parameter configures; "" for none.
	ext string
	// id and url are derived from the name (see init).
	id, url string
}

// extSpec is an extension of the catalogue.
type extSpec struct {
	name, description string
	loader            platform.ExtensionLoader
	internal          bool
	// unavailable is why the cluster cannot load it; "" when it can.
	unavailable string
	// id and url are derived from the name, and params are the
	// extension's parameters (see init).
	id, url string
	params  []*paramSpec
}

// postgresParams is PostgreSQL's parameter catalogue, in list order.
var postgresParams = []*paramSpec{
	{name: "max_connections", displayName: "Max connections", namespace: platform.NamespacePgconf, category: "Connections", description: "Largest number of concurrent connections to the server.", typ: platform.ParameterInteger, def: "100", min: 25, max: 5000, restart: true, required: true},
	{name: "shared_buffers", displayName: "Shared buffers", namespace: platform.NamespacePgconf, category: "Memory", description: "Memory the server uses for its shared buffer cache.", typ: platform.ParameterBytes, def: "128MB", min: 16 << 20, max: 64 << 30, restart: true, required: true},
	{name: "work_mem", displayName: "Work memory", namespace: platform.NamespacePgconf, category: "Memory", description: "Memory a sort or hash operation may use before spilling to disk.", typ: platform.ParameterBytes, def: "4MB", min: 64 << 10, max: 2 << 30},
	{name: "maintenance_work_mem", displayName: "Maintenance work memory", namespace: platform.NamespacePgconf, category: "Memory", description: "Memory for maintenance operations such as VACUUM and CREATE INDEX.", typ: platform.ParameterBytes, def: "64MB", min: 1 << 20, max: 2 << 30},
	{name: "statement_timeout", displayName: "Statement timeout", namespace: platform.NamespacePgconf, category: "Client defaults", description: "Longest a statement may run; 0 disables the limit.", typ: platform.ParameterSeconds, def: "0", min: 0, max: 86400},
	{name: "idle_in_transaction_session_timeout", displayName: "Idle in transaction timeout", namespace: platform.NamespacePgconf, category: "Client defaults", description: "Longest a session may idle inside a transaction; 0 disables the limit.", typ: platform.ParameterSeconds, def: "0", min: 0, max: 86400},
	{name: "default_transaction_isolation", displayName: "Default isolation level", namespace: platform.NamespacePgconf, category: "Client defaults", description: "Isolation level of each new transaction.", typ: platform.ParameterSelect, def: "read committed", options: []string{"serializable", "repeatable read", "read committed", "read uncommitted"}},
	{name: "random_page_cost", displayName: "Random page cost", namespace: platform.NamespacePgconf, category: "Query planning", description: "Planner's estimate of the cost of a non-sequential page fetch.", typ: platform.ParameterFloat, def: "4", min: 0, max: 1000},
	{name: "jit", displayName: "JIT compilation", namespace: platform.NamespacePgconf, category: "Query planning", description: "Whether the server may compile parts of queries just in time.", typ: platform.ParameterBoolean, def: "on"},
	{name: "log_statement", displayName: "Log statements", namespace: platform.NamespacePgconf, category: "Logging", description: "Which statements are logged.", typ: platform.ParameterSelect, def: "none", options: []string{"none", "ddl", "mod", "all"}},
	{name: "timezone", displayName: "Time zone", namespace: platform.NamespacePgconf, category: "Client defaults", description: "Time zone for displaying and interpreting time stamps.", typ: platform.ParameterString, def: "UTC"},
	{name: "wal_level", displayName: "WAL level", namespace: platform.NamespacePgconf, category: "Replication", description: "How much information is written to the write-ahead log.", typ: platform.ParameterSelect, def: "logical", options: []string{"replica", "logical"}, immutable: true, restart: true},
	{name: "shared_preload_libraries", displayName: "Shared preload libraries", namespace: platform.NamespacePgconf, category: "Extensions", description: "Extensions loaded when the server starts.", typ: platform.ParameterArray, def: "pg_stat_statements", restart: true},
	{name: "pg_stat_statements.max", displayName: "Tracked statements", namespace: platform.NamespacePgconf, category: "Extensions", description: "Largest number of statements tracked.", typ: platform.ParameterInteger, def: "5000", min: 100, max: 100000, restart: true, ext: "pg_stat_statements"},
	{name: "pg_stat_statements.track", displayName: "Track statements", namespace: platform.NamespacePgconf, category: "Extensions", description: "Which statements are tracked.", typ: platform.ParameterSelect, def: "top", options: []string{"top", "all", "none"}, ext: "pg_stat_statements"},
	{name: "auto_explain.log_min_duration", displayName: "Explain slower than", namespace: platform.NamespacePgconf, category: "Extensions", description: "Plans of statements running longer are logged; -1 disables.", typ: platform.ParameterInteger, def: "-1", min: -1, max: 2147483647, ext: "auto_explain"},
	{name: "hnsw.ef_search", displayName: "HNSW search list size", namespace: platform.NamespacePgconf, category: "Extensions", description: "Size of the dynamic candidate list of an HNSW index search.", typ: platform.ParameterInteger, def: "40", min: 1, max: 1000, ext: "vector"},
	{name: "pool_mode", displayName: "Pool mode", namespace: platform.NamespacePgbouncer, category: "Connection pooling", description: "When a server connection returns to the pool.", typ: platform.ParameterSelect, def: "transaction", options: []string{"session", "transaction", "statement"}},
	{name: "default_pool_size", displayName: "Default pool size", namespace: platform.NamespacePgbouncer, category: "Connection pooling", description: "Server connections per user and database pair.", typ: platform.ParameterInteger, def: "20", min: 1, max: 10000},
	{name: "max_client_conn", displayName: "Max client connections", namespace: platform.NamespacePgbouncer, category: "Connection pooling", description: "Largest number of client connections.", typ: platform.ParameterInteger, def: "1000", min: 10, max: 100000},
	{name: "synchronous_mode", displayName: "Synchronous replication", namespace: platform.NamespacePatroni, category: "Replication", description: "Whether a commit waits for a replica to confirm it.", typ: platform.ParameterBoolean, def: "off", restart: true},
	{name: "maximum_lag_on_failover", displayName: "Maximum lag on failover", namespace: platform.NamespacePatroni, category: "Replication", description: "Largest replication lag a replica may have to be promoted.", typ: platform.ParameterBytes, def: "1MB", min: 0, max: 1 << 30},
}

// postgresExtensions is PostgreSQL's extension catalogue, in list order.
var postgresExtensions = []*extSpec{
	{name: "pg_stat_statements", description: "Tracks the planning and execution statistics of statements.", loader: platform.LoaderSharedPreload},
	{name: "auto_explain", description: "Logs the plans of slow statements.", loader: platform.LoaderSessionPreload},
	{name: "vector", description: "Vector data type and similarity search indexes.", loader: platform.LoaderCreate},
	{name: "pg_trgm", description: "Trigram matching for similarity search of text.", loader: platform.LoaderCreate},
	{name: "postgis", description: "Geographic objects and spatial queries.", loader: platform.LoaderCreate},
	{name: "pg_cron", description: "Runs scheduled jobs inside the database.", loader: platform.LoaderSharedPreload, unavailable: "container_upgrade_required"},
	{name: "pg_repack", description: "Reorganizes tables without holding long locks.", loader: platform.LoaderCreate, internal: true},
}

// paramByName and extByName index the catalogues.
var (
	paramByName = indexBy(postgresParams, func(p *paramSpec) string { return p.name })
	extByName   = indexBy(postgresExtensions, func(e *extSpec) string { return e.name })
)

// init derives what the catalogue entries share from their names, once.
func init() {
	for _, p := range postgresParams {
		p.id, p.url = catalogueID("prm", p.name), "https://docs.dbplatform.dev/postgresql/parameters#"+p.name
		if e := extByName[p.ext]; e != nil {
			e.params = append(e.params, p)
		}
	}
	for _, e := range postgresExtensions {
		e.id, e.url = catalogueID("ext", e.name), "https://docs.dbplatform.dev/postgresql/extensions#"+e.name
	}
}

func indexBy[T any](items []T, key func(T) string) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		m[key(it)] = it
	}
	return m
}

// clusterParams is the parameter catalogue of a kind of database: a MySQL
// database's server options are its keyspaces' mysqld_options instead, so
// it has none.
func clusterParams(kind platform.DatabaseKind) []*paramSpec {
	if kind == platform.KindPostgreSQL {
		return postgresParams
	}
	return nil
}

// clusterExtensions is the extension catalogue of a kind of database; none
// for MySQL.
func clusterExtensions(kind platform.DatabaseKind) []*extSpec {
	if kind == platform.KindPostgreSQL {
		return postgresExtensions
	}
	return nil
}

// catalogueID is the stable ID of a catalogue entry: prefix and a hash of
// its name, 12 characters in all.
func catalogueID(prefix, name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return prefix + fmt.Sprintf("%016x", h.Sum64())[:12-len(prefix)]
}

// validateParameter checks a value for a cluster parameter of a database of
// kind: a 422 naming the parameter when the catalogue has no such
// parameter, it cannot be changed, or the value is not of its type or
// outside its range or options.
func validateParameter(kind platform.DatabaseKind, name, value string) error {
	p := paramByName[name]
	if p == nil || !slices.Contains(clusterParams(kind), p) {
		return unprocessable("parameter %q is not a cluster parameter of %s databases; list_parameters lists them", name, kind)
	}
	if p.immutable {
		return unprocessable("parameter %s cannot be changed", name)
	}
	bad := func(want string) error {
		return unprocessable("parameter %s: %q is not %s", name, value, want)
	}
	inRange := func(v float64, unit func(float64) string) error {
		if p.min < p.max && (v < p.min || v > p.max) {
			return unprocessable("parameter %s: %q is out of range: it must be from %s to %s", name, value, unit(p.min), unit(p.max))
		}
		return nil
	}
	plain := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch p.typ {
	case platform.ParameterInteger:
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return bad("an integer")
		}
		return inRange(float64(v), plain)
	case platform.ParameterFloat:
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("a number")
		}
		return inRange(v, plain)
	case platform.ParameterBoolean:
		switch strings.ToLower(value) {
		case "on", "off", "true", "false", "yes", "no", "1", "0":
			return nil
		}
		return bad("on or off")
	case platform.ParameterBytes:
		v, ok := withUnit(value, byteUnits)
		if !ok {
			return bad("a size (a number with an optional unit: B, kB, MB, GB, TB)")
		}
		return inRange(v, formatBytes)
	case platform.ParameterSeconds:
		v, ok := withUnit(value, secondUnits)
		if !ok {
			return bad("a duration (a number with an optional unit: ms, s, min, h, d)")
		}
		return inRange(v, func(v float64) string { return plain(v) + "s" })
	case platform.ParameterSelect:
		if !slices.Contains(p.options, value) {
			return bad("one of " + strings.Join(p.options, ", "))
		}
	case platform.ParameterArray:
		return validateLibraries(name, value)
	case platform.ParameterString:
		if strings.TrimSpace(value) == "" {
			return bad("a non-empty string")
		}
	}
	return nil
}

// validateLibraries checks shared_preload_libraries: a comma-separated list
// of extensions the cluster loads at start.
func validateLibraries(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	for lib := range strings.SplitSeq(value, ",") {
		lib = strings.TrimSpace(lib)
		e := extByName[lib]
		switch {
		case e == nil || e.loader != platform.LoaderSharedPreload:
			return unprocessable("parameter %s: %q is not an extension loaded at start; list_extensions lists them", name, lib)
		case e.unavailable != "":
			return unprocessable("parameter %s: extension %s is unavailable: %s", name, lib, e.unavailable)
		}
	}
	return nil
}

// The units of bytes and seconds parameters, in their base unit.
var (
	byteUnits   = map[string]float64{"": 1, "B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	secondUnits = map[string]float64{"": 1, "ms": 0.001, "s": 1, "min": 60, "h": 3600, "d": 86400}
)

// formatBytes writes a size in the largest unit that divides it.
func formatBytes(v float64) string {
	for _, u := range []string{"TB", "GB", "MB", "kB"} {
		if f := byteUnits[u]; v != 0 && math.Mod(v, f) == 0 {
			return strconv.FormatFloat(v/f, 'f', -1, 64) + u
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "B"
}

// withUnit parses a whole number with an optional unit into the base unit.
func withUnit(value string, units map[string]float64) (float64, bool) {
	i := strings.IndexFunc(value, func(r rune) bool { return (r < '0' || r > '9') && r != '-' })
	if i < 0 {
		i = len(value)
	}
	n, err := strconv.ParseInt(value[:i], 10, 64)
	f, ok := units[strings.TrimSpace(value[i:])]
	if err != nil || !ok {
		return 0, false
	}
	return float64(n) * f, true
}

// paramRenderer renders parameters as a branch has them: what the
// parameters of one branch share is rendered once.
type paramRenderer struct {
	created platform.Timestamp
	actor   *platform.Actor
	set     map[string]paramValue // the values change requests set
}

func newParamRenderer(b *branchRec) paramRenderer {
	return paramRenderer{created: platform.NewTimestamp(b.created), actor: renderActor(b.actor), set: b.clusterView().params}
}

// parameter renders a parameter with the branch's value: its default
// until a change request sets it, and then who set it when.
func (r paramRenderer) parameter(p *paramSpec) *platform.ClusterParameter {
	out := r.catalogued(p)
	if v, ok := r.set[p.name]; ok {
		out.Value, out.Updated, out.Actor = v.value, platform.NewTimestamp(v.updated), renderActor(v.actor)
	}
	return out
}

func (r paramRenderer) catalogued(p *paramSpec) *platform.ClusterParameter {
	return &platform.ClusterParameter{
		ID:            p.id,
		Name:          p.name,
		DisplayName:   p.displayName,
		Namespace:     p.namespace,
		Category:      p.category,
		Description:   p.description,
		Extension:     p.ext != "",
		Immutable:     p.immutable,
		ParameterType: p.typ,
		DefaultValue:  p.def,
		Value:         p.def,
		Required:      p.required,
		Created:       r.created,
		Updated:       r.created,
		Restart:       p.restart,
		Max:           p.max,
		Min:           p.min,
		URL:           p.url,
		Options:       append([]string{}, p.options...),
		Actor:         r.actor,
	}
}

func (r paramRenderer) extension(e *extSpec) *platform.ClusterExtension {
	out := &platform.ClusterExtension{
		ID:                e.id,
		Name:              e.name,
		Description:       e.description,
		Internal:          e.internal,
		Loader:            e.loader,
		URL:               e.url,
		Available:         e.unavailable == "",
		UnavailableReason: e.unavailable,
		Parameters:        make([]*platform.ClusterParameter, len(e.params)),
	}
	for i, p := range e.params {
		out.Parameters[i] = r.parameter(p)
	}
	return out
}
