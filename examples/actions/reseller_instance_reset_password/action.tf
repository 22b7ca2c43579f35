# Rotate the root password: terraform apply -invoke=action.reseller_instance_reset_password.web
# reseller_instance.web.password shows the new password after the next refresh
# (terraform apply -refresh-only).
action "reseller_instance_reset_password" "web" {
  config {
    instance_id = reseller_instance.web.id
  }
}
