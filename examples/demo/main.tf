# Demo: find the cheapest plan in a country and a Linux template for it, price the order, register
# a webhook (verified with a test ping), order a real server with a one-click app, take a snapshot
# of it, print its address, price and the wallet, and (with `make demo`) destroy it all again. The
# order and the snapshot are charged to the wallet; the server's events reach the webhook signed.
#
#   resellerd dev                      # prints the two lines to export:
#   export RESELLER_ENDPOINT=http://127.0.0.1:8080/api/v1
#   export RESELLER_API_KEY=...
#   export TF_VAR_webhook_url=...      # a receiver, e.g. examples/webhook-receiver
#   export TF_VAR_webhook_secret=...   # the receiver's WEBHOOK_SECRET
#   terraform init && terraform apply
#
# `make demo` (examples/demo/run.sh) does all of it: it starts `resellerd dev` and the example
# receiver on loopback, then prints the verified events.

terraform {
  required_version = ">= 1.11" # write-only arguments
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

variable "webhook_url" {
  description = "Endpoint that receives the account's events: https://, or http:// on loopback when resellerd runs with --allow-http-webhooks."
  type        = string
}

variable "webhook_secret" {
  description = "Secret that signs the deliveries, 16 to 256 characters. Ephemeral: never stored in the plan or the state."
  type        = string
  sensitive   = true
  ephemeral   = true
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

# Registered first, so that the events of the order and the snapshot are delivered to it. The
# write-only secret_wo never reaches the state; verify sends a signed test ping.
resource "reseller_webhook" "demo" {
  url               = var.webhook_url
  secret_wo         = var.webhook_secret
  secret_wo_version = 1
  verify            = true
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

  depends_on = [reseller_webhook.demo]
}

# Read after the order was charged.
data "reseller_balance" "after_order" {
  depends_on = [reseller_instance.demo]
}

# A snapshot of the server, billed hourly by its size once available. Taken after the balance
# above was read, so that balance shows the order's charge alone.
resource "reseller_snapshot" "demo" {
  instance_id = reseller_instance.demo.id
  name        = "demo snapshot"
  note        = "Taken by make demo"

  depends_on = [data.reseller_balance.after_order]
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

output "server_password" {
  description = "The server's root password: against resellerd --machines sandbox it logs into the server over SSH."
  value       = reseller_instance.demo.password
  sensitive   = true
}

output "balance_after_order" {
  description = "Wallet balance in USD once the server's first hour was charged."
  value       = data.reseller_balance.after_order.balance
}

output "snapshot" {
  description = "The snapshot of the server: its size in GB and what it costs per hour and per month (USD)."
  value = {
    id            = reseller_snapshot.demo.id
    status        = reseller_snapshot.demo.status
    size_gb       = reseller_snapshot.demo.size_gb
    price         = reseller_snapshot.demo.price
    price_monthly = reseller_snapshot.demo.price_monthly
  }
}

output "webhook" {
  description = "The registered webhook and the events the service can send to it."
  value = {
    url    = reseller_webhook.demo.url
    events = reseller_webhook.demo.events
  }
}
