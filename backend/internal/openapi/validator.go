package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Validator checks HTTP exchanges (a request and the response it got) against the document.
// It is safe for concurrent use.
type Validator struct {
	doc      *openapi3.T
	basePath string // path of the document's server, "/api/v1"
	routes   []pathRoute
	opts     *openapi3filter.Options

	// Synthetic operations for requests the document has no operation for.
	notFound         *openapi3.Operation
	methodNotAllowed *openapi3.Operation
}

// pathRoute is one path template of the document, split into segments.
type pathRoute struct {
	template string
	segments []string // "{name}" for a parameter
	static   int      // number of literal segments, for precedence
	item     *openapi3.PathItem
}

// NewValidator builds a Validator over its own copy of the document.
//
// The document's server URL is the relative /api/v1, so requests are routed by path alone: a
// request for http://ANY-HOST:ANY-PORT/api/v1/... (or a server-side request whose URL is only the
// path) matches the operation of the path after /api/v1.
func NewValidator() (*Validator, error) {
	doc, err := load()
	if err != nil {
		return nil, err
	}
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return nil, errors.New("openapi: the document declares no server")
	}
	base := strings.TrimSuffix(doc.Servers[0].URL, "/")
	if !strings.HasPrefix(base, "/") {
		return nil, fmt.Errorf("openapi: server URL %q is not a relative path", doc.Servers[0].URL)
	}

	v := &Validator{
		doc:      doc,
		basePath: base,
		opts: &openapi3filter.Options{
			// Authentication is the backend's business; the document only names the schemes.
			AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
			IncludeResponseStatus: true, // an undocumented status is an error
			SkipSettingDefaults:   true, // never rewrite the request while validating it
			MultiError:            true,
		},
	}
	for _, template := range doc.Paths.InMatchingOrder() {
		segs := strings.Split(strings.TrimPrefix(template, "/"), "/")
		r := pathRoute{template: template, segments: segs, item: doc.Paths.Value(template)}
		for _, s := range segs {
			if !isParam(s) {
				r.static++
			}
		}
		v.routes = append(v.routes, r)
	}
	sort.SliceStable(v.routes, func(i, j int) bool { return v.routes[i].static > v.routes[j].static })

	responses := doc.Components.Responses
	nf, mna := responses["NotFound"], responses["MethodNotAllowed"]
	if nf == nil || mna == nil {
		return nil, errors.New("openapi: components.responses lacks NotFound or MethodNotAllowed")
	}
	v.notFound = &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(http.StatusNotFound, nf))}
	v.methodNotAllowed = &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(http.StatusMethodNotAllowed, mna))}
	return v, nil
}

func isParam(segment string) bool {
	return len(segment) > 2 && segment[0] == '{' && segment[len(segment)-1] == '}'
}

// match finds the path template for an API path (the part after the base path) and the values
// of its path parameters.
func (v *Validator) match(apiPath string) (*pathRoute, map[string]string) {
	segs := strings.Split(strings.TrimPrefix(apiPath, "/"), "/")
	for i := range v.routes {
		r := &v.routes[i]
		if len(r.segments) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for k, want := range r.segments {
			got, err := url.PathUnescape(segs[k])
			if err != nil {
				ok = false
				break
			}
			if isParam(want) {
				if got == "" {
					ok = false
					break
				}
				params[want[1:len(want)-1]] = got
			} else if got != want {
				ok = false
				break
			}
		}
		if ok {
			return r, params
		}
	}
	return nil, nil
}

// Validate checks one exchange: req with its body reqBody (req.Body is not read), and the answer
// status, header and body respBody.
//
//   - The request must match an operation (path under /api/v1 and method). A path the document
//     lacks must have been answered 404 and a known path with another method 405, both with the
//     Error envelope (and, for 405, an Allow header).
//   - The request is validated against the operation: path, query and header parameters and the
//     JSON body. A request the document calls invalid must have been answered with a 4xx error;
//     it is then accepted as a negative case and only the response is checked.
//   - The response status must be documented for the operation, the documented headers present
//     (X-Request-ID everywhere, Retry-After on 429) and the body must match the schema.
//
// Authentication is not checked. It returns nil when the exchange agrees with the document.
func (v *Validator) Validate(ctx context.Context, req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) error {
	if req == nil || req.URL == nil {
		return errors.New("openapi: no request")
	}
	if header == nil {
		header = http.Header{}
	}
	label := fmt.Sprintf("%s %s -> %d", req.Method, req.URL.Path, status)

	route := &routers.Route{Spec: v.doc, Server: v.doc.Servers[0]}
	var pathParams map[string]string
	escaped := req.URL.EscapedPath()
	var pr *pathRoute
	if rest, ok := strings.CutPrefix(escaped, v.basePath); ok && strings.HasPrefix(rest, "/") {
		pr, pathParams = v.match(rest)
	}
	if pr == nil {
		route.Path, route.PathItem, route.Method, route.Operation = escaped, &openapi3.PathItem{}, req.Method, v.notFound
		return v.synthetic(ctx, label, "unknown path", req, route, status, header, respBody)
	}
	method := req.Method
	if method == http.MethodHead && pr.item.Get != nil {
		method = http.MethodGet // HEAD is served by GET; its body is not validated
	}
	op := pr.item.GetOperation(method)
	if op == nil {
		route.Path, route.PathItem, route.Method, route.Operation = pr.template, pr.item, req.Method, v.methodNotAllowed
		return v.synthetic(ctx, label, "method not allowed on "+pr.template, req, route, status, header, respBody)
	}
	route.Path, route.PathItem, route.Method, route.Operation = pr.template, pr.item, method, op

	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.ContentLength = int64(len(reqBody))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(reqBody)), nil }
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options:    v.opts,
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	respErr := openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                v.opts,
	})

	var errs []error
	if reqErr != nil && (status < 400 || status > 499) {
		errs = append(errs, fmt.Errorf("the request does not match the document (so a 4xx answer was expected): %w", reqErr))
	}
	if respErr != nil {
		errs = append(errs, fmt.Errorf("response: %w", respErr))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("openapi: %s (operation %s %s): %w", label, route.Method, route.Path, errors.Join(errs...))
}

// synthetic checks the answer to a request the document has no operation for.
func (v *Validator) synthetic(ctx context.Context, label, why string, req *http.Request, route *routers.Route, status int, header http.Header, respBody []byte) error {
	in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: v.opts}
	err := openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                v.opts,
	})
	if err != nil {
		return fmt.Errorf("openapi: %s (%s): %w", label, why, err)
	}
	return nil
}
