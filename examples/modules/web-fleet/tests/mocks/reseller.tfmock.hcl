# Mock data for `mock_provider "reseller"` (Terraform 1.7 and later): values that satisfy the
# provider's own validators (ids of at least 1, statuses the provider reports, RFC 3339 times),
# so a module's inputs built from them pass. Copy it into your module's tests and adjust.

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
