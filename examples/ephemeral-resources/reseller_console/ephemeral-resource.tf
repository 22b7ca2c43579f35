# A console session for a server. The URL and password exist only during the run: they are never
# written to the plan or the state. Terraform 1.10 or later.
ephemeral "reseller_console" "web" {
  instance_id = reseller_instance.web.id
}

# Ephemeral values can feed other ephemeral contexts, such as a provider configuration or a
# write-only argument; here a local that lives only for the run.
locals {
  console_login = "${ephemeral.reseller_console.web.console_url} (password ${ephemeral.reseller_console.web.console_password})"
}
