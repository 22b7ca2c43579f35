# The secret comes from an ephemeral variable (Terraform 1.10+) and is sent as the write-only
# secret_wo (Terraform 1.11+): it is never stored in the plan or the state.
variable "webhook_secret" {
  description = "Secret that signs the webhook deliveries, 16 to 256 characters."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "reseller_webhook" "main" {
  url               = "https://hooks.example.com/reseller"
  secret_wo         = var.webhook_secret
  secret_wo_version = 1 # change it to send a new secret

  # Send the test event "ping" on every create and update; fail unless the endpoint answers 2xx.
  verify = true
}

output "webhook_events" {
  value = reseller_webhook.main.events
}
