package api

import (
	"context"
	"net/http"
)

// Facts is what the API learned about a request it served, as its access line shows them: the
// route it matched (see routeLabel; "unmatched" for none) and the account the key
// authenticated (0: none).
type Facts struct {
	Route     string
	AccountID int64
}

// Track returns r carrying a record the API fills in while it serves r, and a function that
// reads the record once the API has answered. A middleware outside the API (`resellerd dev`'s
// request journal) learns through it what the access log learns, without authenticating the
// key a second time. Route is "" when the API never saw the request.
func Track(r *http.Request) (*http.Request, func() Facts) {
	rec := &accessRecord{}
	read := func() Facts { return Facts{Route: rec.route, AccountID: rec.accountID} }
	return r.WithContext(context.WithValue(r.Context(), accessKey{}, rec)), read
}

// newAccessRecord is the record of a request entering the API: the one Track put in ctx, or
// else spare (the request's pooled one).
func newAccessRecord(ctx context.Context, spare *accessRecord) *accessRecord {
	rec, ok := ctx.Value(accessKey{}).(*accessRecord)
	if !ok {
		rec = spare
	}
	rec.route = unmatchedRoute
	return rec
}
