# Every active server of the account, including those not managed here.
data "reseller_instances" "active" {}

# Canceled and expired servers too.
data "reseller_instances" "all" {
  only_active = false
}

output "servers" {
  value = { for s in data.reseller_instances.active.instances : s.name => s.ipv4 }
}
