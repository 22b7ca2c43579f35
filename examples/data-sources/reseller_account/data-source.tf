data "reseller_account" "me" {}

output "account" {
  value = {
    id           = data.reseller_account.me.id
    server_limit = data.reseller_account.me.server_limit
    key_hint     = data.reseller_account.me.api_key_hint
  }
}
