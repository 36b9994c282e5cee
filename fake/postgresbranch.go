package fake

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// What a PostgreSQL branch runs beyond its size: its major version and
// its storage, which create_branch and change requests set.

// postgresVersions are the PostgreSQL major versions a branch may run,
// each with the full version the fake reports for it (a change request's
// version and previous_version).
var postgresVersions = map[string]string{"16": "16.9", "17": "17.5"}

// defaultPostgresMajor is the latest major version, which a database's
// first branch runs.
const defaultPostgresMajor = "17"

// postgresMajor is the major version a PostgreSQL branch runs.
func (b *branchRec) postgresMajor() string {
	return cmp.Or(b.more.read().majorVersion, defaultPostgresMajor)
}

// postgresVersion is the full version b runs; "" for a MySQL branch.
func (b *branchRec) postgresVersion() string {
	if b.db.kind != platform.KindPostgreSQL {
		return ""
	}
	return postgresVersions[b.postgresMajor()]
}

// setPostgresMajor makes b run major, keeping nothing for the default
// so that most branches carry no lazy part for it.
func (b *branchRec) setPostgresMajor(major string) {
	if major != b.postgresMajor() {
		b.x().majorVersion = major
	}
}

// postgresMajorFor checks the value of a major_version field (named
// field): a 422 naming the field and the value for a version no branch
// may run.
func postgresMajorFor(field, v string) (string, error) {
	if _, ok := postgresVersions[v]; !ok {
		return "", unprocessable("%s %q is not a supported PostgreSQL major version (%s)", field, v,
			strings.Join(slices.Sorted(maps.Keys(postgresVersions)), ", "))
	}
	return v, nil
}

// askPostgres checks the major_version and storage fields of a request
// that makes a branch of database name, of kind: create_database's first
// branch, or create_branch's. It returns the major version (def when major
// is "") and the storage bounds (nil for the defaults); a MySQL database
// refuses both fields.
func askPostgres(name string, kind platform.DatabaseKind, major string, storage *platform.StorageParams, def string) (string, *storageConfig, error) {
	if kind != platform.KindPostgreSQL {
		switch {
		case major != "":
			return "", nil, unprocessable("major_version applies to postgresql branches; %s is a %s database", name, kind)
		case storage != nil:
			return "", nil, unprocessable("storage applies to postgresql branches; %s is a %s database", name, kind)
		}
		return "", nil, nil
	}
	if major == "" {
		major = def
	} else if _, err := postgresMajorFor("major_version", major); err != nil {
		return "", nil, err
	}
	if storage == nil {
		return major, nil, nil
	}
	st, err := checkStorage(defaultStorageConfig(), &platform.BranchStorage{
		MinimumStorageBytes: storage.MinimumStorageBytes, MaximumStorageBytes: storage.MaximumStorageBytes,
	})
	if err != nil {
		return "", nil, err
	}
	return major, &st, nil
}

// defaultStorageConfig is the storage a branch starts with, unless its
// creation bounds it.
func defaultStorageConfig() storageConfig {
	return storageConfig{min: defaultMinStorage, max: defaultMaxStorage, autoscaling: true, iops: minIOPS, throughput: minThroughput}
}

// checkStorage applies a change request's storage to st and checks the
// result.
func checkStorage(st storageConfig, p *platform.BranchStorage) (storageConfig, error) {
	setIf(&st.min, p.MinimumStorageBytes)
	setIf(&st.max, p.MaximumStorageBytes)
	setIf(&st.autoscaling, p.StorageAutoscaling)
	setIf(&st.iops, p.StorageIOPS)
	setIf(&st.throughput, p.StorageThroughputMiBs)
	switch {
	case st.min < gib:
		return st, unprocessable("storage.minimum_storage_bytes %d is below 1 GiB (%d)", st.min, gib)
	case st.max < st.min:
		return st, unprocessable("storage.maximum_storage_bytes %d is below minimum_storage_bytes %d", st.max, st.min)
	case st.iops < minIOPS || st.iops > maxIOPS:
		return st, unprocessable("storage.storage_iops %d is out of range: it must be from %d to %d", st.iops, minIOPS, maxIOPS)
	case st.throughput < minThroughput || st.throughput > maxThroughput:
		return st, unprocessable("storage.storage_throughput_mibs %d is out of range: it must be from %d to %d", st.throughput, minThroughput, maxThroughput)
	}
	return st, nil
}
