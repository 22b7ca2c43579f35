package api

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// checkRequest refuses, before any route runs, what no route can read: a query string that does
// not parse (every parameter would silently vanish from r.URL.Query) and a body that is not
// declared as JSON.
func checkRequest(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return checkContentType(r)
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		return service.Validation("query", "is malformed: %v", err)
	}
	return checkContentType(r)
}

// checkContentType answers 415 unsupported_media_type to a request that carries a body (a
// Content-Length above 0, or a chunked body) without `Content-Type: application/json`. The
// one parameter allowed is charset, and only utf-8: JSON is UTF-8 (RFC 8259).
func checkContentType(r *http.Request) error {
	if r.ContentLength == 0 {
		return nil
	}
	header := r.Header.Get("Content-Type")
	mediaType, params, err := mime.ParseMediaType(header)
	if err == nil && mediaType == "application/json" && jsonParams(params) {
		return nil
	}
	return &service.Error{Kind: service.KindUnsupportedMediaType, Code: service.CodeUnsupportedMediaType,
		Message: fmt.Sprintf("a request body must be sent as Content-Type: application/json, not %q", header)}
}

// jsonParams accepts no parameter but charset=utf-8 (in any case).
func jsonParams(params map[string]string) bool {
	for name, value := range params {
		if name != "charset" || !strings.EqualFold(value, "utf-8") {
			return false
		}
	}
	return true
}
