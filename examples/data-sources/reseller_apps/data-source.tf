data "reseller_plan" "small" {
  country_code = "DE"
}

data "reseller_template" "ubuntu" {
  plan_id    = data.reseller_plan.small.id
  name_regex = "(?i)^ubuntu"
}

# The apps this plan and template can run.
data "reseller_apps" "compatible" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.ubuntu.id
}

output "app_ids" {
  value = [for a in data.reseller_apps.compatible.apps : a.id]
}
