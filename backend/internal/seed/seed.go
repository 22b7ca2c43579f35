// Package seed applies the accounts of a seed (`resellerd dev --seed`, `resellerd seed`) through
// the service's own paths: each server is ordered, deployed and charged as an API client's
// would be, then powered off, snapshotted, and the webhook set last. Package seedfile reads the
// seed files into its types; resellerd.Seed runs Apply on a backend of its own.
package seed

import (
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// Account is one account of a seed: its fixed key and wallet, the servers already running,
// their snapshots and the webhook.
type Account struct {
	service.NewAccount // APIKey is required here
	Servers            []Server
	Snapshots          []Snapshot
	Webhook            *Webhook
}

// Server is a server that is running when the seed has been applied.
type Server struct {
	Name       string
	PlanID     int64
	TemplateID int64
	PowerOff   bool
}

// Snapshot is an available snapshot of the seeded server named Server.
type Snapshot struct {
	Name   string
	Server string
}

// Webhook is the account's webhook.
type Webhook struct {
	URL    string
	Secret string
}

// Error says which part of a seed failed: account Account (0-based), and within it Part
// ("servers", "snapshots", "webhook"; empty for the account's own fields) at Index, so that a
// reader of the seed's file can name the line (seedfile's File.Explain).
type Error struct {
	Account int
	Part    string
	Index   int
	Err     error
}

func (e *Error) Error() string {
	if e.Part == "" {
		return fmt.Sprintf("account %d: %v", e.Account, e.Err)
	}
	return fmt.Sprintf("account %d: %s %d: %v", e.Account, e.Part, e.Index, e.Err)
}

// Unwrap exposes the service's error to errors.As, which File.Explain reads its field from.
func (e *Error) Unwrap() error { return e.Err }
