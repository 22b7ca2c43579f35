variable "server_count" {
  description = "Number of servers."
  type        = number
  default     = 2

  validation {
    condition     = var.server_count >= 1 && var.server_count <= 10 && floor(var.server_count) == var.server_count
    error_message = "server_count must be a whole number from 1 to 10."
  }
}

variable "name_prefix" {
  description = "Servers are named and host-named PREFIX-1, PREFIX-2, ..."
  type        = string
  default     = "web"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,40}$", var.name_prefix))
    error_message = "name_prefix must be lower-case letters, digits and dashes, starting with a letter."
  }
}

variable "country_code" {
  description = "Two-letter ISO code of the country the servers run in."
  type        = string
  default     = "DE"
}

variable "min_cpu" {
  description = "Minimum CPU cores of the plan."
  type        = number
  default     = 1
}

variable "min_memory" {
  description = "Minimum memory of the plan in GB."
  type        = number
  default     = 1
}

variable "max_price" {
  description = "Highest hourly price in USD of the plan; null for no limit."
  type        = number
  default     = null
}

variable "snapshot_label" {
  description = "When not empty, every server gets a snapshot named \"LABEL NAME\": set it before a change."
  type        = string
  default     = ""
}

variable "webhook_url" {
  description = "Endpoint that receives the account's events; null registers no webhook."
  type        = string
  default     = null
}

variable "webhook_secret" {
  description = "Secret that signs the deliveries, 16 to 256 characters (write-only: never in the state)."
  type        = string
  default     = null
  sensitive   = true
}

variable "ssh_check" {
  description = "Log into every server over SSH once it is up and check its hostname (needs servers you can log into: resellerd --machines sandbox)."
  type        = bool
  default     = false
}
