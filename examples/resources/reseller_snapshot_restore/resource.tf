# Roll the server back to the snapshot, once. Everything written to its disk since the snapshot is
# lost, and the server is left powered off (reseller_instance switches it on again at the next
# apply). Change the trigger to roll back again; destroying this resource changes nothing.
resource "reseller_snapshot_restore" "rollback" {
  snapshot_id = reseller_snapshot.before_upgrade.id

  triggers = {
    rollback = "2025-06-01"
  }
}
