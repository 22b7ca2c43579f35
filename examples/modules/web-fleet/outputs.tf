output "plan" {
  description = "The plan the servers run on: id, name and hourly price in USD."
  value = {
    id    = data.reseller_plan.fleet.id
    name  = data.reseller_plan.fleet.name
    price = data.reseller_plan.fleet.price
  }
}

output "server_ids" {
  description = "Ids of the servers, in order."
  value       = reseller_instance.web[*].id
}

output "server_names" {
  description = "Names of the servers, in order."
  value       = reseller_instance.web[*].name
}

output "ipv4" {
  description = "IPv4 addresses of the servers, in order."
  value       = reseller_instance.web[*].ipv4
}

output "snapshot_ids" {
  description = "Ids of the snapshots taken before the change (empty without snapshot_label)."
  value       = reseller_snapshot.before_change[*].id
}

output "webhook_events" {
  description = "Events the webhook receives (empty without webhook_url)."
  value       = flatten(reseller_webhook.fleet[*].events)
}

output "ssh_checked" {
  description = "Ids of the servers logged into over SSH (empty without ssh_check)."
  value       = terraform_data.ssh_check[*].input
}
