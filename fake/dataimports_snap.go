package fake

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of data imports: each live database's import and import
// notifications, by the database's ID, and the sources tests set up, by
// organization and host.

type dataImportsSnap struct {
	Imports       []importSnap       `json:"imports"`
	Sources       []importSourceSnap `json:"sources"`
	Notifications []importNotesSnap  `json:"notifications"`
}

type importSnap struct {
	stampsSnap
	Database    string                   `json:"database"`
	State       platform.DataImportState `json:"state"`
	CheckErrors string                   `json:"import_check_errors"`
	Started     time.Time                `json:"started"`
	Finished    time.Time                `json:"finished"`
	Source      importSourceRecSnap      `json:"source"`
	Plan        string                   `json:"plan"`
	MaxPoolSize int                      `json:"max_pool_size"`
}

type importSourceRecSnap struct {
	Host          string `json:"host"`
	Port          int    `json:"port"`
	Schema        string `json:"schema"`
	Username      string `json:"username"`
	SSLMode       string `json:"ssl_mode"`
	SSLServerName string `json:"ssl_server_name"`
}

type importSourceSnap struct {
	Organization string       `json:"organization"`
	Host         string       `json:"host"`
	Source       ImportSource `json:"source"`
}

type importNotesSnap struct {
	Database string               `json:"database"`
	Notes    []ImportNotification `json:"notes"`
}

// dataImports saves the imports, notifications and sources: nil when there
// are none.
func (sv *saver) dataImports() *dataImportsSnap {
	var out dataImportsSnap
	for _, db := range listOrder(sv.dbSet) {
		m := db.more.peek()
		if m == nil || db.deleted {
			continue
		}
		if imp := m.dataImport; imp != nil {
			src := imp.source
			out.Imports = append(out.Imports, importSnap{
				stampsSnap: saveStamps(imp.stamps), Database: db.id, State: imp.state, CheckErrors: imp.checkErrors,
				Started: imp.started, Finished: imp.finished, Plan: imp.plan, MaxPoolSize: imp.maxPoolSize,
				Source: importSourceRecSnap{
					Host: src.host, Port: src.port, Schema: src.schema, Username: src.username,
					SSLMode: src.sslMode, SSLServerName: src.sslServerName,
				},
			})
		}
		if len(m.importNotes) > 0 {
			out.Notifications = append(out.Notifications, importNotesSnap{Database: db.id, Notes: slices.Clone(m.importNotes)})
		}
	}
	for k, src := range sv.w.importSources {
		out.Sources = append(out.Sources, importSourceSnap{Organization: k.org.name, Host: k.host, Source: src})
	}
	slices.SortFunc(out.Sources, func(a, b importSourceSnap) int {
		return cmp.Or(cmp.Compare(a.Organization, b.Organization), cmp.Compare(a.Host, b.Host))
	})
	if out.Imports == nil && out.Sources == nil && out.Notifications == nil {
		return nil
	}
	return &out
}

// loadDataImports loads the imports, notifications and sources, once the
// databases exist.
func (ld *loader) loadDataImports(snap *dataImportsSnap) error {
	if snap == nil {
		return nil
	}
	for i, is := range snap.Imports {
		if err := ld.loadImport(is); err != nil {
			return at(named(err, "data import %s", is.ID), "imports[%d]", i)
		}
	}
	for i, ns := range snap.Notifications {
		if err := ld.loadImportNotes(ns); err != nil {
			return at(err, "notifications[%d]", i)
		}
	}
	for i, ss := range snap.Sources {
		if err := ld.loadImportSource(ss); err != nil {
			return at(err, "sources[%d]", i)
		}
	}
	return nil
}

// liveDB finds a database of the snapshot that is not deleted.
func (ld *loader) liveDB(id string) (*dbRec, error) {
	db, err := refNonNil(ld.dbs, id, "database")
	if err == nil && db.deleted {
		err = fmt.Errorf("database %s is deleted", id)
	}
	return db, at(err, "database")
}

func (ld *loader) loadImport(is importSnap) error {
	if err := unique(ld.imports, is.ID, "data import"); err != nil {
		return at(err, "id")
	}
	db, err := ld.liveDB(is.Database)
	if err != nil {
		return err
	}
	if err := is.validate(); err != nil {
		return err
	}
	if db.dataImport() != nil {
		return fmt.Errorf("database %s has two data imports", db.id)
	}
	src := is.Source
	imp := &importRec{
		stamps: is.load(), db: db, state: is.State, checkErrors: is.CheckErrors,
		started: is.Started, finished: is.Finished, plan: is.Plan, maxPoolSize: is.MaxPoolSize,
		source: importSourceRec{
			host: src.Host, port: src.Port, schema: src.Schema, username: src.Username,
			sslMode: src.SSLMode, sslServerName: src.SSLServerName,
		},
	}
	ld.imports[imp.id] = imp
	db.x().dataImport = imp
	return nil
}

// validate checks an import as start_data_import and its steps leave one.
func (is *importSnap) validate() error {
	src := is.Source
	var finished error
	switch {
	case is.State == platform.DataImportReady:
		finished = snapTime(is.Finished)
	case !is.Finished.IsZero():
		finished = errors.New("only a ready import has finished")
	}
	conn := platform.DataImportConnection{
		Hostname: src.Host, Port: src.Port, Database: src.Schema, Username: src.Username,
		SSLMode: src.SSLMode, SSLServerName: src.SSLServerName,
	}
	var port error
	if src.Port == 0 {
		port = errors.New("must be from 1 to 65535")
	}
	return firstErr(
		at(snapOneOf(is.State, "a data import state", platform.DataImportStates...), "state"),
		at(snapTime(is.Started), "started"),
		at(finished, "finished"),
		at(port, "source.port"),
		at(snapCheck(checkConnection(&conn)), "source"),
		at(snapOneOf(is.Plan, "a plan", importPlanFree, importPlanPaid), "plan"),
		at(snapRange(is.MaxPoolSize, 1, 1000), "max_pool_size"),
	)
}

func (ld *loader) loadImportNotes(ns importNotesSnap) error {
	db, err := ld.liveDB(ns.Database)
	if err != nil {
		return err
	}
	if len(ns.Notes) > maxImportNotes {
		return at(fmt.Errorf("%d notifications, more than %d", len(ns.Notes), maxImportNotes), "notes")
	}
	if db.x().importNotes != nil {
		return fmt.Errorf("database %s appears twice", db.id)
	}
	for i, n := range ns.Notes {
		if err := firstErr(snapTime(n.At), n.validate()); err != nil {
			return at(err, "notes[%d]", i)
		}
	}
	db.x().importNotes = slices.Clone(ns.Notes)
	return nil
}

func (ld *loader) loadImportSource(ss importSourceSnap) error {
	org := ld.w.orgs[ss.Organization]
	if org == nil {
		return at(fmt.Errorf("organization %q is not in the snapshot", ss.Organization), "organization")
	}
	if ss.Host == "" || len(ss.Host) > 255 {
		return at(fmt.Errorf("%q is not a host name", ss.Host), "host")
	}
	if err := ss.Source.validate(); err != nil {
		return at(err, "source")
	}
	key := importSourceKey{org, ss.Host}
	if _, ok := ld.w.importSources[key]; ok {
		return at(fmt.Errorf("%s appears twice in %s", ss.Host, org.name), "host")
	}
	if ld.w.importSources.count(org) >= maxImportSources {
		return fmt.Errorf("%s has more than %d sources", org.name, maxImportSources)
	}
	if ld.w.importSources == nil {
		ld.w.importSources = importSources{}
	}
	ld.w.importSources[key] = ss.Source
	return nil
}
