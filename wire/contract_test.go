package wire_test

import (
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/openapicheck"
	"github.com/reseller/terraform-provider-reseller/webhook"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// shapes pairs every body of the package with its component schema, money as the provider
// holds it; backend/internal/api's TestViewsMatchOpenAPI checks the same shapes with the
// backend's money.Micros. Nested shapes (Credentials in InstanceDetail...) are checked inside
// their parents.
var shapes = []struct {
	typ    reflect.Type
	schema string
	dir    openapicheck.Direction
}{
	{reflect.TypeFor[wire.Health](), "Health", openapicheck.Response},
	{reflect.TypeFor[wire.Dollar](), "Dollar", openapicheck.Response},
	{reflect.TypeFor[wire.Account](), "Account", openapicheck.Response},
	{reflect.TypeFor[wire.Balance[float64]](), "Balance", openapicheck.Response},
	{reflect.TypeFor[wire.Payment[float64]](), "Payment", openapicheck.Response},
	{reflect.TypeFor[wire.WebhookSettings](), "WebhookSettings", openapicheck.Response},
	{reflect.TypeFor[wire.WebhookTestResult](), "WebhookTestResult", openapicheck.Response},
	{reflect.TypeFor[wire.Quote[float64]](), "Quote", openapicheck.Response},
	{reflect.TypeFor[wire.Plan[float64]](), "Plan", openapicheck.Response},
	{reflect.TypeFor[wire.App](), "App", openapicheck.Response},
	{reflect.TypeFor[wire.Datacenter](), "Datacenter", openapicheck.Response},
	{reflect.TypeFor[wire.Location](), "Location", openapicheck.Response},
	{reflect.TypeFor[wire.Order[float64]](), "Order", openapicheck.Response},
	{reflect.TypeFor[wire.InstanceSummary[float64]](), "InstanceSummary", openapicheck.Response},
	{reflect.TypeFor[wire.InstanceDetail[float64]](), "InstanceDetail", openapicheck.Response},
	{reflect.TypeFor[wire.Traffic](), "Traffic", openapicheck.Response},
	{reflect.TypeFor[wire.CreatedOrder[float64]](), "CreateInstanceResult", openapicheck.Response},
	{reflect.TypeFor[wire.CanceledInstance](), "CancelInstanceResult", openapicheck.Response},
	{reflect.TypeFor[wire.UpdateInstanceRequest](), "UpdateInstanceRequest", openapicheck.Request},
	{reflect.TypeFor[wire.ActionResult[float64]](), "ActionResult", openapicheck.Response},
	{reflect.TypeFor[wire.ResizeOptions[float64]](), "ResizeOptions", openapicheck.Response},
	{reflect.TypeFor[wire.InstanceApps](), "InstanceApps", openapicheck.Response},
	{reflect.TypeFor[wire.InstallAppsRequest](), "InstallAppsRequest", openapicheck.Request},
	{reflect.TypeFor[wire.InstalledApps](), "InstallAppsResult", openapicheck.Response},
	{reflect.TypeFor[wire.Snapshot[float64]](), "Snapshot", openapicheck.Response},
	{reflect.TypeFor[wire.CreateSnapshotRequest](), "CreateSnapshotRequest", openapicheck.Request},
	{reflect.TypeFor[wire.UpdateSnapshotRequest](), "UpdateSnapshotRequest", openapicheck.Request},
	{reflect.TypeFor[wire.SnapshotSettings[float64]](), "SnapshotSettings", openapicheck.Response},
}

// TestShapesMatchOpenAPI holds every shape to its schema both ways (a field without a
// property, a property without a field, a JSON type, a null or an omission that differ), and
// proves no shape of the package was left out.
func TestShapesMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shapes {
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
