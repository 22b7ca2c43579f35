# Unit test for OpenTofu (`tofu test` reads this file instead of unit.tftest.hcl): the same runs,
# with the mock data of tests/mocks/reseller.tfmock.hcl inline, because OpenTofu's
# mock_provider takes no `source`.

mock_provider "reseller" {
  mock_data "reseller_plan" {
    defaults = {
      id               = 101
      name             = "Standard 1"
      type             = "standard"
      cpu              = 1
      memory           = 1
      disk             = 25
      price            = 0.004
      creation_fee     = 0
      traffic_included = 1000
      datacenter_id    = 1
      location_id      = 11
      available        = true
      actions          = ["power_on", "power_off", "reboot", "rebuild", "reset_password", "change_ip", "console", "resize", "update_metadata"]
    }
  }

  mock_data "reseller_template" {
    defaults = {
      id   = 1
      name = "Ubuntu 24.04"
    }
  }

  mock_resource "reseller_instance" {
    defaults = {
      id             = 1
      order_id       = 1
      status         = "online"
      power          = "on"
      ipv4           = "185.101.0.1"
      ipv6           = "2a0e:101:0::1"
      port           = 22
      username       = "root"
      password       = "mock-password-0123"
      created_at     = "2025-06-01T10:00:00Z"
      renewal_due    = "2025-06-01T11:00:00Z"
      renew          = true
      locked         = false
      price          = 0.004
      ip_change_cost = 0
      datacenter_id  = 1
      location_id    = 11
      actions        = ["power_on", "power_off", "reboot", "rebuild", "reset_password", "change_ip", "console", "resize", "update_metadata"]
    }
  }

  mock_resource "reseller_snapshot" {
    defaults = {
      id            = 1
      status        = "available"
      size_gb       = 10
      price         = 0.000274
      price_monthly = 0.20002
      accrued       = 0
      os_type       = "linux"
      local         = true
      restore       = true
      locked        = false
      datacenter_id = 1
      location_id   = 11
      created_at    = "2025-06-01T10:05:00Z"
      available_at  = "2025-06-01T10:06:00Z"
    }
  }

  mock_resource "reseller_webhook" {
    defaults = {
      id         = "webhook"
      configured = true
      verify     = false
      events     = ["ping", "order.deployed", "order.timed_out", "instance.canceled", "instance.password_reset", "instance.ip_changed", "instance.resized", "snapshot.created", "snapshot.restored", "snapshot.deleted", "balance.low"]
    }
  }
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
