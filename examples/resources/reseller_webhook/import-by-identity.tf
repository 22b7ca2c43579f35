# Terraform 1.12 and later: an import block can name the account's one webhook by its identity.
import {
  to       = reseller_webhook.main
  identity = { id = "webhook" }
}
