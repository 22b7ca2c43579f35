# Integration test: applies the module against a real backend and destroys it again. Run it
# against `resellerd dev`, which prints the two variables the provider reads:
#
#   rm -f reseller.env
#   resellerd dev --listen 127.0.0.1:0 --env-file reseller.env >/dev/null &
#   while [ ! -s reseller.env ]; do sleep 0.2; done
#   . ./reseller.env
#   terraform test -filter=tests/integration.tftest.hcl
#
# RESELLER_ENDPOINT and RESELLER_API_KEY come from the environment; nothing here names them.
# Against `resellerd dev --machines sandbox`, add `-var ssh_check=true`: every server is then
# logged into over SSH (see the module's ssh_check). Between runs of a suite,
#
#   curl -fsS -X POST "${RESELLER_ENDPOINT%/api/v1}/_dev/reset"
#
# starts dev again from no server (machines included), with the same key and port.

variables {
  server_count   = 2
  name_prefix    = "it"
  webhook_url    = "http://127.0.0.1:9/hook" # resellerd dev accepts http:// on loopback
  webhook_secret = "integration-secret-0123456789"
}

run "fleet" {
  assert {
    condition     = length(output.server_ids) == 2 && alltrue([for id in output.server_ids : id >= 1])
    error_message = "expected two servers with ids"
  }

  assert {
    condition     = output.server_names == ["it-1", "it-2"]
    error_message = "servers are not named it-1 and it-2"
  }

  assert {
    condition     = alltrue([for ip in output.ipv4 : can(cidrhost("${ip}/32", 0))])
    error_message = "every server must have an IPv4 address"
  }

  assert {
    condition     = alltrue([for s in reseller_instance.web : s.plan_id == output.plan.id && s.status == "online"])
    error_message = "every server must run the chosen plan and be online"
  }

  assert {
    condition     = length(output.ssh_checked) == (var.ssh_check ? 2 : 0)
    error_message = "with ssh_check, every server must be logged into over SSH"
  }

  assert {
    condition     = contains(output.webhook_events, "order.deployed")
    error_message = "the webhook must receive order.deployed"
  }

  assert {
    condition     = length(output.snapshot_ids) == 0
    error_message = "no snapshot without snapshot_label"
  }
}

run "snapshot_before_change" {
  variables {
    snapshot_label = "pre-upgrade"
  }

  assert {
    condition     = length(output.snapshot_ids) == 2
    error_message = "expected one snapshot per server"
  }

  assert {
    condition     = alltrue([for s in reseller_snapshot.before_change : s.status == "available"])
    error_message = "the snapshots must be available once applied"
  }

  assert {
    condition     = reseller_snapshot.before_change[0].name == "pre-upgrade it-1"
    error_message = "snapshots are named after the label and the server"
  }
}
