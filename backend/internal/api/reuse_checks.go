package api

import "net/http"

// CheckContentType is the API's own rule on request bodies, for handlers outside it (the
// test-control API of `resellerd dev`): a request with a body must send Content-Type:
// application/json (charset utf-8 at most), or it is refused with 415 unsupported_media_type.
// A web page can send a cross-origin request without a preflight only with text/plain or a
// form, so the rule also keeps pages from driving such handlers.
func CheckContentType(r *http.Request) error { return checkContentType(r) }
