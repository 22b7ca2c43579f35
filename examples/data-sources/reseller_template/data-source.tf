data "reseller_plan" "small" {
  country_code = "DE"
}

# The Linux template with the lowest id.
data "reseller_template" "linux" {
  plan_id = data.reseller_plan.small.id
  os_type = "linux"
}

# A template by name.
data "reseller_template" "debian" {
  plan_id    = data.reseller_plan.small.id
  name_regex = "(?i)^debian"
}
