data "reseller_balance" "wallet" {}

output "available_usd" {
  value = data.reseller_balance.wallet.available
}
