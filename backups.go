package platform

// BackupsService manages the backups of branches.
type BackupsService service

// BackupPoliciesService manages the backup schedules of databases.
type BackupPoliciesService service
