# Terraform 1.12 and later: an import block can name the instance by its identity.
import {
  to       = reseller_instance.web
  identity = { id = 123 }
}
