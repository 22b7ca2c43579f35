data "reseller_locations" "europe" {
  datacenter_id = 2
}

output "countries" {
  value = distinct([for l in data.reseller_locations.europe.locations : l.country_code])
}
