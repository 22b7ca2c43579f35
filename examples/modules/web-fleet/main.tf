# web-fleet: N servers of one plan chosen by filters (the cheapest that matches), a Linux
# template for it, a snapshot of every server before a change (when snapshot_label is set) and,
# optionally, the account's webhook. A small real module that shows how to test a module of
# your own with `terraform test`: see tests/ and the README's "Testing your modules".

terraform {
  required_version = ">= 1.11"
  required_providers {
    reseller = {
      source = "reseller/reseller"
    }
  }
}

data "reseller_plan" "fleet" {
  country_code = var.country_code
  min_cpu      = var.min_cpu
  min_memory   = var.min_memory
  max_price    = var.max_price
}

data "reseller_template" "linux" {
  plan_id = data.reseller_plan.fleet.id
  os_type = "linux"
}

# Registered before the servers, so their events reach it.
resource "reseller_webhook" "fleet" {
  count = var.webhook_url == null ? 0 : 1

  url               = var.webhook_url
  secret_wo         = var.webhook_secret
  secret_wo_version = 1
}

resource "reseller_instance" "web" {
  count = var.server_count

  plan_id     = data.reseller_plan.fleet.id
  template_id = data.reseller_template.linux.id
  name        = "${var.name_prefix}-${count.index + 1}"
  hostname    = "${var.name_prefix}-${count.index + 1}"

  depends_on = [reseller_webhook.fleet]
}

# One snapshot per server, taken when snapshot_label is set (say, before an upgrade); a new
# label takes new snapshots.
resource "reseller_snapshot" "before_change" {
  count = var.snapshot_label == "" ? 0 : var.server_count

  instance_id = reseller_instance.web[count.index].id
  name        = "${var.snapshot_label} ${reseller_instance.web[count.index].name}"
}

# With ssh_check, every server is logged into over SSH once it is up (against `resellerd
# --machines sandbox`, where servers are real machines): the apply fails unless each answers
# with its own hostname, with the address, port, user and password the API gave.
resource "terraform_data" "ssh_check" {
  count = var.ssh_check ? var.server_count : 0

  input = reseller_instance.web[count.index].id

  connection {
    type     = "ssh"
    host     = reseller_instance.web[count.index].ipv4
    port     = reseller_instance.web[count.index].port
    user     = reseller_instance.web[count.index].username
    password = reseller_instance.web[count.index].password
  }

  provisioner "remote-exec" {
    inline = ["test \"$(hostname)\" = '${reseller_instance.web[count.index].hostname}'"]
  }
}
