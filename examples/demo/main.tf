# Demo: find the cheapest plan in a country, a Linux template for it, price an order and read
# the wallet. Nothing is ordered or charged.
#
#   export RESELLER_ENDPOINT=http://127.0.0.1:8080/api/v1
#   export RESELLER_API_KEY=...        # from `resellerd account create`
#   terraform init && terraform apply

terraform {
  required_version = ">= 1.5"
  required_providers {
    reseller = {
      source = "reseller/reseller"
    }
  }
}

variable "country_code" {
  description = "Two-letter ISO code of the country to buy in."
  type        = string
  default     = "DE"
}

variable "min_cpu" {
  description = "Minimum number of CPU cores."
  type        = number
  default     = 1
}

variable "features" {
  description = "Ids of optional features to price."
  type        = set(string)
  default     = []
}

provider "reseller" {
  language = "en"
}

data "reseller_account" "me" {}

data "reseller_balance" "wallet" {}

data "reseller_plan" "cheapest" {
  country_code = var.country_code
  min_cpu      = var.min_cpu
}

data "reseller_template" "linux" {
  plan_id = data.reseller_plan.cheapest.id
  os_type = "linux"
}

data "reseller_quote" "order" {
  plan_id     = data.reseller_plan.cheapest.id
  template_id = data.reseller_template.linux.id
  features    = var.features
}

output "account_id" {
  value = data.reseller_account.me.id
}

output "cheapest_plan" {
  description = "The cheapest plan in the country and its hourly price in USD."
  value = {
    id     = data.reseller_plan.cheapest.id
    name   = data.reseller_plan.cheapest.name
    hourly = data.reseller_plan.cheapest.price
  }
}

output "template" {
  value = data.reseller_template.linux.name
}

output "quote_cost" {
  description = "First charge in USD (one hour plus the creation fee)."
  value       = data.reseller_quote.order.cost
}

output "quote_sufficient_balance" {
  value = data.reseller_quote.order.sufficient_balance
}

output "balance" {
  description = "Wallet balance in USD."
  value       = data.reseller_balance.wallet.balance
}
