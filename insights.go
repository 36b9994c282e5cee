package platform

// TabletType is the kind of database server a query ran on.
type TabletType string

// The tablet types.
const (
	// TabletPrimary is the primary, which takes writes.
	TabletPrimary TabletType = "primary"
	// TabletReplica is a replica serving reads.
	TabletReplica TabletType = "replica"
	// TabletRDOnly is a read-only replica for analytics and batch work.
	TabletRDOnly TabletType = "rdonly"
)
