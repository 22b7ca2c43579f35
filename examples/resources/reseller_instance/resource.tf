data "reseller_plan" "small" {
  country_code = "DE"
  min_memory   = 2
}

data "reseller_template" "ubuntu" {
  plan_id    = data.reseller_plan.small.id
  name_regex = "(?i)^ubuntu"
}

resource "reseller_instance" "web" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.ubuntu.id
  hostname    = "web-1.example.com"
  name        = "web 1"
  note        = "Managed by Terraform"

  # Optional extras; features the OS forces (IPv4 on Windows) are added by the API.
  features = ["2"]

  # One-click apps, installed before the create returns (wait_for_apps defaults to true).
  apps = ["wordpress"]
  app_inputs = {
    wordpress = { SITE_TITLE = "Example" }
  }

  # Keep the root password out of the state; read it when needed with the ephemeral
  # reseller_instance_credentials (see its example).
  store_password = false

  # Change either value to rotate the password or get a new IPv4 address in place.
  password_reset_trigger = "2025-06"
  ip_change_trigger      = "1"
  max_ip_change_cost     = 1 # USD you agree to pay per IP change where it is not free

  timeouts {
    create = "30m"
  }
}

output "web_address" {
  value = reseller_instance.web.ipv4
}

output "web_user" {
  value = reseller_instance.web.username
}
