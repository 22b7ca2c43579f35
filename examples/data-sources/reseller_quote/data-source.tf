data "reseller_plan" "small" {
  country_code = "DE"
  min_cpu      = 4
}

data "reseller_template" "windows" {
  plan_id = data.reseller_plan.small.id
  os_type = "windows"
}

# Windows forces the IPv4 feature on; it shows in active_features.
data "reseller_quote" "windows" {
  plan_id     = data.reseller_plan.small.id
  template_id = data.reseller_template.windows.id
  features    = [for f in data.reseller_plan.small.features : tostring(f.id) if f.price < 0.002]
}

check "wallet_covers_order" {
  assert {
    condition     = data.reseller_quote.windows.sufficient_balance
    error_message = "The wallet is ${data.reseller_quote.windows.difference} USD short of the first charge."
  }
}
