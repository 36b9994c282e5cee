package platform

// KeyspacesService manages the keyspaces of branches.
type KeyspacesService service
