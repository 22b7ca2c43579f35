// Package wire holds the JSON bodies of the Reseller API, written once for both ends: the
// backend's handlers (backend/internal/api) encode them and the provider's client
// (internal/client) decodes them, so a shape cannot differ between the two. The backend's
// OpenAPI document (backend/internal/openapi/openapi.yaml) is the other place the contract
// lives; this package's tests hold every type and limit here to it both ways, through
// backend/openapicheck.
//
// Four request bodies stay two types, one per end: CreateInstanceRequest, ActionRequest,
// QuoteRequest and WebhookRequest. The server reads them with pointers to tell a missing
// required field from a zero one (and accept_cost exactly, as a decimal), while the client
// always sends the required fields; both copies are still held to the document. So does the
// envelope's meta, which the server writes with omitempty and the client reads whole.
//
// Money is a type parameter: the backend counts integer micro-USD (money.Micros, which encodes
// itself as exact decimal dollars) and the provider, which only displays and compares prices,
// float64 dollars. Both write and read the same JSON number.
//
// The package sits at the module's top level so that both backend/internal/... and
// internal/... may import it; it imports nothing of either.
package wire

// Money is the Go type an amount of US dollars is held in: an integer of micro-USD that
// encodes itself as dollars (the backend's money.Micros), or float64 dollars (the provider).
type Money interface {
	~int64 | ~float64
}
