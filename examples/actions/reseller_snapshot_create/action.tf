# Take a snapshot of the server before every change Terraform makes to it (a rebuild to a new
# template included). The snapshot is not managed by Terraform: delete it when no longer needed.
data "reseller_instances" "web" {}

action "reseller_snapshot_create" "before_change" {
  config {
    instance_id = data.reseller_instances.web.instances[0].id
    name        = "before-change"
  }
}

resource "reseller_instance" "web" {
  plan_id     = 101
  template_id = 3

  lifecycle {
    action_trigger {
      events  = [before_update]
      actions = [action.reseller_snapshot_create.before_change]
    }
  }
}
