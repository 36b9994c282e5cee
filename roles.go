package platform

// RolesService manages role credentials of branches.
type RolesService service
