package devapi

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// ConsolePath is where the console page of `resellerd dev` is served: one HTML page with its
// script and style sheet, all embedded in the binary, reading the other /_dev/ routes.
const ConsolePath = Prefix + "ui/"

// consoleFiles are the page's assets. Nothing else is loaded: no font, no CDN, no network
// beyond this listener.
//
//go:embed console/index.html console/console.css console/console.js
var consoleFiles embed.FS

// consolePolicy lets the page load only its own files and call only its own listener; it may
// not be framed by another site.
const consolePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// console serves GET /_dev/ui/ (the page) and its assets below it; any other name under it is
// the API's 404.
func (h handler) console(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, ConsolePath)
	if name == "" {
		name = "index.html"
	}
	body, err := fs.ReadFile(consoleFiles, path.Join("console", name))
	if err != nil || strings.Contains(name, "/") {
		h.resp.Fail(w, r, service.NotFound("path "+r.URL.Path))
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	w.Header().Set("Content-Security-Policy", consolePolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(body)
}
