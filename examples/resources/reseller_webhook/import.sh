# An account has one webhook; its import ID is always "webhook".
terraform import reseller_webhook.main webhook
