package wire_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/openapicheck"
	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/webhook"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// shape is a body of the package with its component schema and its direction.
type shape struct {
	typ    reflect.Type
	schema string
	dir    openapicheck.Direction
}

// schemaNames are the bodies whose schema is not named as their type.
var schemaNames = map[string]string{
	"CreatedOrder":     "CreateInstanceResult",
	"CanceledInstance": "CancelInstanceResult",
	"InstalledApps":    "InstallAppsResult",
}

// unsigned are the bodies no method of the client takes or returns (it decodes them inside):
// the only ones written down here.
var unsigned = []shape{
	{reflect.TypeFor[wire.InstanceSummary[float64]](), "InstanceSummary", openapicheck.Response},
}

// shapes is every body of the package with its schema, money as the provider holds it: those
// the client's methods take (requests) and return (responses), found by reflection, so a new
// entity's bodies need no row, and the unsigned ones. backend/internal/api's
// TestViewsMatchOpenAPI checks the same shapes with the backend's money.Micros. Nested shapes
// (Credentials in InstanceDetail...) are checked inside their parents.
func shapes() []shape {
	found := map[reflect.Type]openapicheck.Direction{}
	methods := reflect.TypeFor[*client.Client]()
	for i := range methods.NumMethod() {
		m := methods.Method(i).Type
		for j := 1; j < m.NumIn(); j++ { // 0 is the receiver
			findShapes(m.In(j), openapicheck.Request, found)
		}
		for j := range m.NumOut() {
			findShapes(m.Out(j), openapicheck.Response, found)
		}
	}
	out := slices.Clone(unsigned)
	for typ, dir := range found {
		name, _, _ := strings.Cut(typ.Name(), "[") // Plan[float64] is schema Plan
		if renamed, ok := schemaNames[name]; ok {
			name = renamed
		}
		out = append(out, shape{typ, name, dir})
	}
	slices.SortFunc(out, func(a, b shape) int { return strings.Compare(a.schema, b.schema) })
	return out
}

// findShapes adds to found the wire bodies typ is or holds: typ itself, what it points to or
// lists, and the fields of the client's own types (a page, a result with two parts).
func findShapes(typ reflect.Type, dir openapicheck.Direction, found map[reflect.Type]openapicheck.Direction) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	switch typ.PkgPath() {
	case reflect.TypeFor[wire.Location]().PkgPath():
		found[typ] = dir
	case reflect.TypeFor[client.Client]().PkgPath():
		for i := range typ.NumField() {
			if typ.Field(i).IsExported() {
				findShapes(typ.Field(i).Type, dir, found)
			}
		}
	}
}

// TestShapesMatchOpenAPI holds every shape to its schema both ways (a field without a
// property, a property without a field, a JSON type, a null or an omission that differ), and
// proves no shape of the package was left out.
func TestShapesMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	all := shapes()
	if len(all) < 20 {
		t.Fatalf("found %d shapes through the client; want every body", len(all))
	}
	for _, s := range all {
		if err := c.Struct(s.typ, s.schema, s.dir); err != nil {
			t.Error(err)
		}
	}
	if err := c.Covered(".", reflect.TypeFor[wire.Location]().PkgPath(), nil); err != nil {
		t.Errorf("shapes left out of the check:\n%v", err)
	}
}

// TestLimitsMatchOpenAPI: the document states every limit with the value of the Go constant
// the backend enforces and the provider checks at plan time, so neither can change alone.
func TestLimitsMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	limits := []openapicheck.Limit{
		{Schema: "WebhookRequest", Property: "url", Keyword: "maxLength", Want: webhook.MaxURLLength},
		{Schema: "WebhookRequest", Property: "secret", Keyword: "minLength", Want: webhook.MinSecretLength},
		{Schema: "WebhookRequest", Property: "secret", Keyword: "maxLength", Want: webhook.MaxSecretLength},
		{Schema: "CreateInstanceRequest", Property: "hostname", Keyword: "maxLength", Want: wire.MaxHostnameLength},
		{Schema: "Page", Property: "limit", Keyword: "maximum", Want: wire.MaxPageSize},
	}
	for _, schema := range []string{"UpdateInstanceRequest", "ActionRequest", "UpdateSnapshotRequest"} {
		limits = append(limits,
			openapicheck.Limit{Schema: schema, Property: "name", Keyword: "maxLength", Want: wire.MaxNameLength},
			openapicheck.Limit{Schema: schema, Property: "note", Keyword: "maxLength", Want: wire.MaxNoteLength})
	}
	limits = append(limits,
		openapicheck.Limit{Schema: "CreateSnapshotRequest", Property: "name", Keyword: "maxLength", Want: wire.MaxNameLength})
	if err := c.Limits(limits); err != nil {
		t.Error(err)
	}
}
