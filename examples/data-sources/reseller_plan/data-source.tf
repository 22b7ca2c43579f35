# The cheapest plan with at least 2 CPU cores in a given datacenter.
data "reseller_plan" "small" {
  datacenter_id = 2
  min_cpu       = 2
}

# A plan by id.
data "reseller_plan" "by_id" {
  id = data.reseller_plan.small.id
}

output "small_plan" {
  value = "${data.reseller_plan.small.name} (${data.reseller_plan.small.price} USD/h)"
}
