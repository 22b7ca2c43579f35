# The login of a server kept out of the state (store_password = false on reseller_instance.web),
# read fresh in each run when it is needed. Terraform 1.10 or later.
ephemeral "reseller_instance_credentials" "web" {
  instance_id = reseller_instance.web.id
}

# Ephemeral values feed other ephemeral contexts only: a provider block, a write-only argument,
# a provisioner connection, or a local that lives only for the run, as here.
locals {
  web_ssh = "ssh -p ${ephemeral.reseller_instance_credentials.web.port} ${ephemeral.reseller_instance_credentials.web.username}@${ephemeral.reseller_instance_credentials.web.ipv4}"
}
