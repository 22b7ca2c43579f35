package api

import "net/http"

// APIKey is the key a request carries, read as every authenticated route reads it
// (X-API-Token, else Authorization: Bearer); `resellerd dev`'s test-control API takes it so.
func APIKey(r *http.Request) string { return apiKey(r) }
