# Demo: find the cheapest plan in a country and a Linux template for it, price the order, then
# order a real server with a one-click app, print its address, price and the wallet, and (with
# `make demo`) destroy it again. The order is charged to the wallet.
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
  description = "Ids of optional features to order."
  type        = set(string)
  default     = []
}

variable "apps" {
  description = "One-click apps to install on the server."
  type        = list(string)
  default     = ["docker"]
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

resource "reseller_instance" "demo" {
  plan_id     = data.reseller_plan.cheapest.id
  template_id = data.reseller_template.linux.id
  hostname    = "demo-1"
  name        = "terraform demo"
  features    = var.features
  apps        = var.apps

  timeouts {
    create = "10m"
  }
}

# Read after the order was charged.
data "reseller_balance" "after_order" {
  depends_on = [reseller_instance.demo]
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
  description = "Wallet balance in USD before the order."
  value       = data.reseller_balance.wallet.balance
}

output "server" {
  description = "The server: its address, login user and the USD charged for its order."
  value = {
    id       = reseller_instance.demo.id
    ipv4     = reseller_instance.demo.ipv4
    username = reseller_instance.demo.username
    price    = reseller_instance.demo.price
    apps     = reseller_instance.demo.apps
  }
}

output "balance_after_order" {
  description = "Wallet balance in USD once the server's first hour was charged."
  value       = data.reseller_balance.after_order.balance
}
