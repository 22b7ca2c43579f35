package api

import "net/http"

// Key is the key a request carries, read as every authenticated route reads it
// (X-API-Token, else Authorization: Bearer); `resellerd dev`'s test-control API takes it so.
func Key(r *http.Request) string { return apiKey(r) }
