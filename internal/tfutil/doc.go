// Package tfutil holds the helpers every Terraform type of the provider shares: turning client
// errors into diagnostics, fetching the API client handed over by the provider, small value
// conversions, and the bounded, cancellable waits (Poll; WaitServer, WaitOrder and WaitSnapshot,
// one per thing the API builds). Keeping them here means every data source and resource reports
// errors and waits the same way.
package tfutil
