# A server you can log into: against `resellerd dev --machines sandbox` (or `serve`), every Linux
# server is a real machine on the resellerd host, reachable over SSH at its own address with the
# API's credentials. Terraform's own provisioners then work as on any cloud: this one writes a
# file on the new server, and the output reads the machine's hostname back over SSH.
#
#   sudo resellerd dev --machines sandbox --env-file reseller.env &
#   . ./reseller.env
#   terraform init && terraform apply

terraform {
  required_version = ">= 1.11"
  required_providers {
    reseller = {
      source = "reseller/reseller"
    }
  }
}

variable "greeting" {
  description = "What the provisioner writes to /root/greeting on the server."
  type        = string
  default     = "hello from terraform"
}

data "reseller_plan" "small" {
  country_code = "DE"
}

data "reseller_template" "linux" {
  plan_id = data.reseller_plan.small.id
  os_type = "linux"
}

resource "reseller_instance" "box" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.linux.id
  name        = "box"
  hostname    = "box-1"

  connection {
    type     = "ssh"
    host     = self.ipv4
    port     = self.port
    user     = self.username
    password = self.password
  }

  provisioner "file" {
    content     = "${var.greeting}\n"
    destination = "/root/greeting"
  }

  provisioner "remote-exec" {
    inline = [
      "test \"$(cat /root/greeting)\" = '${var.greeting}'",
      "hostname > /root/provisioned",
    ]
  }
}

output "ssh" {
  description = "How to log in (the password is in the state: `terraform output -raw password`)."
  value       = "ssh ${reseller_instance.box.username}@${reseller_instance.box.ipv4} -p ${reseller_instance.box.port}"
}

output "password" {
  description = "The root password SSH takes."
  value       = reseller_instance.box.password
  sensitive   = true
}
