# Terraform orders a Debian 12 server and Ansible configures it: against `resellerd dev
# --machines sandbox` started with a real Debian image for the Debian 12 template, the server is
# Debian with python3, so Ansible's modules run on it as on any cloud's.
#
#   sudo resellerd image build --out /var/lib/resellerd/images/debian12
#   sudo resellerd dev --machines sandbox --machines-image-for 3=/var/lib/resellerd/images/debian12 --env-file reseller.env &
#   . ./reseller.env
#   terraform init && terraform apply        # needs ansible-playbook and sshpass on this host

terraform {
  required_version = ">= 1.11"
  required_providers {
    reseller = {
      source = "reseller/reseller"
    }
  }
}

data "reseller_plan" "small" {
  country_code = "DE"
}

data "reseller_template" "debian" {
  plan_id    = data.reseller_plan.small.id
  name_regex = "^Debian 12"
}

resource "reseller_instance" "web" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.debian.id
  name        = "web"
  hostname    = "web-1"
}

# The playbook runs once the server is up, and again when the server is replaced. The inventory
# is the resource's address, user and password; the password reaches ansible-playbook through
# the environment, never its command line.
resource "terraform_data" "configure" {
  triggers_replace = [reseller_instance.web.id]

  provisioner "local-exec" {
    command = <<-EOT
      ansible-playbook -i '${reseller_instance.web.ipv4},' -u '${reseller_instance.web.username}' \
        -e ansible_port=${reseller_instance.web.port} -e "ansible_password={{ lookup('env', 'SSH_PASSWORD') }}" \
        -e fetch_dir='${path.module}/fetched' ${path.module}/playbook.yml
    EOT
    environment = {
      SSH_PASSWORD              = reseller_instance.web.password
      ANSIBLE_HOST_KEY_CHECKING = "False"
      # A server built again may come back at an address another server had: no known_hosts.
      ANSIBLE_SSH_ARGS = "-C -o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no"
    }
  }
}

output "ssh" {
  description = "How to log in (the password: `terraform output -raw password`)."
  value       = "ssh ${reseller_instance.web.username}@${reseller_instance.web.ipv4} -p ${reseller_instance.web.port}"
}

output "password" {
  description = "The root password SSH (and Ansible) takes."
  value       = reseller_instance.web.password
  sensitive   = true
}
