package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// Page sizes a client may ask for.
const (
	minLimit = 1
	maxLimit = wire.MaxPageSize
)

// decodeJSON reads exactly one JSON object into dst, rejecting unknown fields. Every failure is
// a validation_error whose message names the field (or `body`).
func decodeJSON(r *http.Request, dst any) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeBytes(b, dst)
}

// readBody reads the whole body; withBodyLimit has capped it, and going over is 413.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, bodyTooLarge(tooLarge.Limit)
	case err != nil:
		return nil, service.Validation("body", "cannot be read: %v", err)
	}
	return b, nil
}

// decodeBytes is decodeJSON on a body already read. Only an object is a body: `null`, an
// array or a scalar would otherwise decode into the request struct as "nothing sent".
func decodeBytes(b []byte, dst any) error {
	if trimmed := bytes.TrimLeft(b, " \t\r\n"); len(trimmed) > 0 && trimmed[0] != '{' {
		return service.Validation("body", "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return service.Validation("body", "must hold a single JSON object")
	}
	return nil
}

// query is r's query, parsed as url.URL.Query does; a request without one (most of them) is
// answered nil, which reads as empty, without allocating the map Query makes every call.
func query(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

// queryBool reads an optional boolean query parameter, "true" or "false".
func queryBool(r *http.Request, name string, def bool) (bool, error) {
	q := query(r)
	if !q.Has(name) {
		return def, nil
	}
	switch q.Get(name) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, service.Validation(name, "must be true or false")
	}
}

func decodeError(err error) error {
	var (
		typeErr   *json.UnmarshalTypeError
		syntaxErr *json.SyntaxError
		tooLarge  *http.MaxBytesError
	)
	switch {
	case errors.As(err, &tooLarge):
		return bodyTooLarge(tooLarge.Limit)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return service.Validation(typeErr.Field, "must be %s", describeType(typeErr.Type))
	case errors.As(err, &typeErr):
		return service.Validation("body", "must be a JSON object")
	case errors.Is(err, io.EOF):
		return service.Validation("body", "is empty; a JSON object is required")
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return service.Validation("body", "is not valid JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return service.Validation(field, "unknown field")
	default:
		return service.Validation("body", "cannot be read: %v", err)
	}
}

// describeType names a Go type the way a JSON client thinks of it.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "a "), "an ") + "s"
	default:
		return "an object"
	}
}

// pagination is the limit/offset of a list request.
type pagination struct {
	page  store.Page
	paged bool // limit was sent: the answer carries meta.page
}

// parsePagination reads `limit` (1 to 500, optional) and `offset` (0 or more).
func parsePagination(r *http.Request) (pagination, error) {
	p := pagination{page: store.All}
	q := query(r)
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < minLimit || n > maxLimit {
			return p, service.Validation("limit", "must be an integer from %d to %d", minLimit, maxLimit)
		}
		p.page.Limit, p.paged = n, true
	}
	if q.Has("offset") {
		n, err := strconv.Atoi(q.Get("offset"))
		if err != nil || n < 0 {
			return p, service.Validation("offset", "must be an integer of 0 or more")
		}
		p.page.Offset = n
	}
	return p, nil
}

// meta is meta.page when limit was sent, nil otherwise.
func (p pagination) meta(total int) any {
	if !p.paged {
		return nil
	}
	return MetaView{Page: &PageView{Total: total, Limit: p.page.Limit, Offset: p.page.Offset}}
}

// paginate slices an in-memory list.
func paginate[T any](items []T, p pagination) []T {
	start := min(p.page.Offset, len(items))
	end := len(items)
	if p.page.Limit >= 0 {
		end = min(start+p.page.Limit, len(items))
	}
	return items[start:end]
}

// queryID reads an optional positive integer query parameter; 0 means it was not sent.
func queryID(r *http.Request, name string) (int64, error) {
	q := query(r)
	if !q.Has(name) {
		return 0, nil
	}
	return parseID(name, q.Get(name))
}

// parseID reads a positive integer id.
func parseID(name, raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, service.Validation(name, "must be a positive integer")
	}
	return id, nil
}

// pathID reads a positive integer path parameter.
func pathID(r *http.Request, name string) (int64, error) { return parseID(name, r.PathValue(name)) }

// queryTerm checks the optional `term` query parameter.
func queryTerm(r *http.Request) error {
	q := query(r)
	if !q.Has("term") {
		return nil
	}
	return service.CheckTerm(q.Get("term"))
}

// queryCountryCode reads an optional ISO 3166-1 alpha-2 code, case-insensitively.
func queryCountryCode(r *http.Request) (string, error) {
	q := query(r)
	if !q.Has("country_code") {
		return "", nil
	}
	code := strings.ToUpper(q.Get("country_code"))
	if len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z' {
		return "", service.Validation("country_code", "must be a two-letter ISO country code")
	}
	return code, nil
}

// checkLang refuses a `lang` query parameter other than `fa` or `en`: a typo should not silently
// answer in the other language.
func checkLang(r *http.Request) error {
	q := query(r)
	if !q.Has("lang") {
		return nil
	}
	switch q.Get("lang") {
	case "fa", "en":
		return nil
	default:
		return service.Validation("lang", "must be fa or en")
	}
}

// language picks English when `lang=en` is sent, or when no `lang` is sent and the first tag of
// Accept-Language is English; Persian otherwise. checkLang has already refused other values.
func language(r *http.Request) catalog.Lang {
	q := query(r)
	if q.Has("lang") {
		if q.Get("lang") == "en" {
			return catalog.English
		}
		return catalog.Persian
	}
	first, _, _ := strings.Cut(r.Header.Get("Accept-Language"), ",")
	first, _, _ = strings.Cut(first, ";")
	primary, _, _ := strings.Cut(strings.TrimSpace(first), "-")
	if strings.EqualFold(primary, "en") {
		return catalog.English
	}
	return catalog.Persian
}
