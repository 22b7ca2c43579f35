# Plans in Germany with at least 2 CPU cores and 4 GB of memory, cheapest first.
data "reseller_plans" "germany" {
  country_code = "DE"
  min_cpu      = 2
  min_memory   = 4
  max_price    = 0.05
}

output "plan_names" {
  value = [for p in data.reseller_plans.germany.plans : "${p.name}: ${p.price} USD/h"]
}
