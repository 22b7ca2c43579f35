# Open a server's console from a run. The console URL is a page asking the console password,
# then a root shell on the server's own terminal; it lives 10 minutes (resellerd's
# --console-ttl). A provisioner may read ephemeral values, which never reach the plan or the
# state: this one hands them to you in a file only you can read. Terraform 1.10 or later.
ephemeral "reseller_console" "web" {
  instance_id = reseller_instance.web.id
}

resource "terraform_data" "console" {
  # Runs once, when created: `terraform apply -replace=terraform_data.console` opens a new one.
  input = reseller_instance.web.id

  provisioner "local-exec" {
    command = "umask 077 && printf 'open %s\\nconsole password: %s\\n' \"$CONSOLE_URL\" \"$CONSOLE_PASSWORD\" > console.txt"
    environment = {
      CONSOLE_URL      = ephemeral.reseller_console.web.console_url
      CONSOLE_PASSWORD = ephemeral.reseller_console.web.console_password
    }
  }
}
