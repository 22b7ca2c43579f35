# Terraform 1.16 or later: take a last snapshot of each server before Terraform destroys it
# (terraform destroy, a server dropped from count or for_each, or a replacement). `caller` is
# the server whose trigger runs the action; naming reseller_instance.fleet here instead is
# refused as an action reference cycle.
action "reseller_snapshot_create" "last" {
  config {
    instance_id = caller.id
    name        = "last-of-${caller.name}"
  }
}

# Snapshots that outlive the server: local_snapshots = false skips datacenters that keep
# snapshots on the server's own disk, where the snapshot would be deleted with the server.
data "reseller_plan" "kept_apart" {
  min_cpu         = 1
  local_snapshots = false
}

resource "reseller_instance" "fleet" {
  for_each    = toset(["web-1", "web-2"])
  plan_id     = data.reseller_plan.kept_apart.id
  template_id = 1
  name        = each.key

  lifecycle {
    action_trigger {
      events  = [before_destroy]
      actions = [action.reseller_snapshot_create.last]
      # halt (the default) stops an apply whose snapshot failed before the server is deleted;
      # continue deletes it anyway. `terraform destroy` is never stopped by a destroy action.
      on_failure = halt
    }
  }
}
