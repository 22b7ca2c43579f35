// Package service holds the rules of the Reseller API: accounts and their keys, the wallet and
// its ledger, the catalogue as an account may see it, and quotes. It speaks in store and catalog
// types and micro-USD; the api package turns its results into JSON and its *Error into envelopes.
package service

import (
	"crypto/rand"
	"io"
	"log/slog"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// Clock tells the time; tests inject one they can move.
type Clock interface{ Now() time.Time }

// Service carries out the API's rules on a store and the seeded catalogue.
type Service struct {
	store   store.Store
	catalog *catalog.Catalog
	clock   Clock
	log     *slog.Logger
	random  io.Reader
}

// New wires a Service. All time comes from clock so tests control it.
func New(st store.Store, cat *catalog.Catalog, clock Clock, log *slog.Logger) *Service {
	return &Service{store: st, catalog: cat, clock: clock, log: log, random: rand.Reader}
}

// Catalog returns the seeded catalogue, for read-only lookups such as the dollar rate.
func (s *Service) Catalog() *catalog.Catalog { return s.catalog }

// now is the service's time, in UTC so every stored and shown timestamp has the same offset.
func (s *Service) now() time.Time { return s.clock.Now().UTC() }
