// Package tfutil holds the helpers every Terraform type of the provider shares: turning client
// errors into diagnostics, fetching the API client handed over by the provider, and small value
// conversions. Keeping them here means every data source and resource reports errors the same way.
package tfutil
