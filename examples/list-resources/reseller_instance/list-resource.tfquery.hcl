# Every active server of the account (run `terraform query`).
list "reseller_instance" "all" {
  provider = reseller
}

# The running web servers in datacenter 1: servers named web-..., online.
list "reseller_instance" "web" {
  provider = reseller

  config {
    name_regex    = "^web-"
    status        = "online"
    datacenter_id = 1
  }
}
