# Reboot a server on demand: terraform apply -invoke=action.reseller_instance_power.reboot_web
action "reseller_instance_power" "reboot_web" {
  config {
    instance_id = reseller_instance.web.id
    state       = "reboot"
  }
}
