# A snapshot of a server before an upgrade. It is billed hourly by its size from the moment it is
# available (see price and price_monthly); the server keeps running while it is taken.
resource "reseller_snapshot" "before_upgrade" {
  instance_id = reseller_instance.web.id
  name        = "before upgrade"
  note        = "Taken by Terraform before the June upgrade"

  timeouts {
    create = "30m"
  }
}

# A second server built from the snapshot: it runs the snapshot's OS with its login and features
# (template_id is omitted). The plan must be in the snapshot's datacenter, with a disk at least as
# big as the snapshot; this is checked while planning.
resource "reseller_instance" "web_copy" {
  plan_id     = reseller_instance.web.plan_id
  snapshot_id = reseller_snapshot.before_upgrade.id
  name        = "web copy"
}

output "snapshot_cost" {
  value = {
    size_gb       = reseller_snapshot.before_upgrade.size_gb
    price_monthly = reseller_snapshot.before_upgrade.price_monthly
  }
}
