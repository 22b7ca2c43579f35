# Every usable snapshot of the account (creating, available or restoring), newest first,
# including those whose server is gone. Add instance_id to list one server's only.
data "reseller_snapshots" "all" {}

# With the deleted, expired and failed ones too.
data "reseller_snapshots" "history" {
  include_inactive = true
}

output "snapshots" {
  value = { for s in data.reseller_snapshots.all.snapshots : s.id => s.name }
}
