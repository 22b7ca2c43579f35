# Unit test: runs without a backend. mock_provider answers every data source and resource with
# the values of tests/mocks/reseller.tfmock.hcl (and the overrides below), so this checks the
# module's own logic: counts, names, conditions and what flows from one block to another.
# (OpenTofu reads unit.tofutest.hcl instead: it takes no `source` in mock_provider.)

mock_provider "reseller" {
  source = "./tests/mocks"
}

# Mocked servers have nothing to log into: the SSH check stays off here even when the CLI sets
# ssh_check=true for the integration test (a test file's variables win over -var).
variables {
  ssh_check = false
}

run "two_servers_by_default" {
  assert {
    condition     = length(output.server_ids) == 2
    error_message = "expected two servers by default"
  }

  assert {
    condition     = output.server_names == ["web-1", "web-2"]
    error_message = "servers are named PREFIX-N"
  }

  assert {
    condition     = alltrue([for s in reseller_instance.web : s.plan_id == 101 && s.template_id == 1])
    error_message = "servers use the plan and the template found"
  }

  assert {
    condition     = length(output.snapshot_ids) == 0 && length(reseller_webhook.fleet) == 0
    error_message = "no snapshot and no webhook unless asked for"
  }
}

run "plan_chosen_by_filters" {
  override_data {
    target = data.reseller_plan.fleet
    values = {
      id    = 202
      name  = "Large"
      price = 0.05
    }
  }

  variables {
    server_count = 3
    min_cpu      = 4
  }

  assert {
    condition     = output.plan.id == 202 && alltrue([for s in reseller_instance.web : s.plan_id == 202])
    error_message = "every server runs the plan the filters found"
  }

  assert {
    condition     = length(output.server_ids) == 3
    error_message = "server_count servers"
  }
}

run "snapshot_before_change" {
  variables {
    snapshot_label = "pre-upgrade"
  }

  assert {
    condition     = length(output.snapshot_ids) == 2
    error_message = "one snapshot per server"
  }

  assert {
    condition     = reseller_snapshot.before_change[1].name == "pre-upgrade web-2"
    error_message = "snapshots are named after the label and the server"
  }
}

run "webhook" {
  variables {
    webhook_url    = "https://hooks.example.com/reseller"
    webhook_secret = "unit-secret-0123456789"
  }

  assert {
    condition     = contains(output.webhook_events, "order.deployed")
    error_message = "the webhook lists its events"
  }
}

run "refuses_zero_servers" {
  command = plan

  variables {
    server_count = 0
  }

  expect_failures = [var.server_count]
}
