// Package apitest is the HTTP conformance suite of resellerd's API: its tests start whole
// backends through resellerd.New and drive /api/v1 over real HTTP, check every exchange against
// the OpenAPI document and decode the answers into the server's own views (backend/internal/api).
// They reach the backend only through server's exported API (Config, the operator hooks, RunDue with a ManualClock) and read
// or seed the rows no client sees through a second store on the backend's database, as
// `resellerd account` would. The package has no code of its own.
//
// RESELLER_TEST_STORE=postgres runs the whole suite on a throwaway PostgreSQL server.
package apitest
