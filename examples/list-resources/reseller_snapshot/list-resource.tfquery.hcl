# Every usable snapshot of the account (run `terraform query`).
list "reseller_snapshot" "all" {
  provider = reseller
}

# The snapshots of one server, ended ones included.
list "reseller_snapshot" "web" {
  provider = reseller

  config {
    instance_id      = 123
    include_inactive = true
  }
}
