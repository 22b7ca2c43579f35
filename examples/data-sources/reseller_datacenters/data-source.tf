data "reseller_datacenters" "all" {}

# Only the datacenters taking orders now.
output "available_datacenters" {
  value = [for dc in data.reseller_datacenters.all.datacenters : dc.name if dc.status == "available"]
}
