# The endpoint and key can also come from RESELLER_ENDPOINT and RESELLER_API_KEY.
provider "reseller" {
  endpoint     = "http://127.0.0.1:8080/api/v1"
  alt_endpoint = "http://127.0.0.1:8081/api/v1" # optional fallback
  api_key      = var.reseller_api_key
  language     = "en"
  max_retries  = 8
  plan_checks  = "warn" # "error" stops the plan before an order the account cannot take
}

variable "reseller_api_key" {
  type      = string
  sensitive = true
}
