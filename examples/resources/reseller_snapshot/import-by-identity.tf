# Terraform 1.12 and later: an import block can name the snapshot by its identity.
import {
  to       = reseller_snapshot.before_upgrade
  identity = { id = 456 }
}
