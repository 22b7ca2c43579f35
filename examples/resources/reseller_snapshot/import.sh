# A snapshot is imported by its numeric id (see the reseller_snapshots data source).
terraform import reseller_snapshot.before_upgrade 42
