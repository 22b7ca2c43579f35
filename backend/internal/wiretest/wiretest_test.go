package wiretest

import (
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/openapicheck"
)

// bodies pairs every type of this package with its component schema. Nested types (Price in
// Plan, Credentials in Instance...) are checked inside their parents.
var bodies = []struct {
	typ    reflect.Type
	schema string
}{
	{reflect.TypeFor[Health](), "Health"},
	{reflect.TypeFor[Dollar](), "Dollar"},
	{reflect.TypeFor[Account](), "Account"},
	{reflect.TypeFor[Balance](), "Balance"},
	{reflect.TypeFor[Payment](), "Payment"},
	{reflect.TypeFor[WebhookSettings](), "WebhookSettings"},
	{reflect.TypeFor[WebhookTestResult](), "WebhookTestResult"},
	{reflect.TypeFor[Plan](), "Plan"},
	{reflect.TypeFor[Datacenter](), "Datacenter"},
	{reflect.TypeFor[Location](), "Location"},
	{reflect.TypeFor[App](), "App"},
	{reflect.TypeFor[Quote](), "Quote"},
	{reflect.TypeFor[Meta](), "Meta"},
	{reflect.TypeFor[Order](), "Order"},
	{reflect.TypeFor[Instance](), "InstanceDetail"},
	{reflect.TypeFor[Traffic](), "Traffic"},
	{reflect.TypeFor[CreatedOrder](), "CreateInstanceResult"},
	{reflect.TypeFor[CanceledInstance](), "CancelInstanceResult"},
	{reflect.TypeFor[ActionResult](), "ActionResult"},
	{reflect.TypeFor[ResizeOptions](), "ResizeOptions"},
	{reflect.TypeFor[InstanceApps](), "InstanceApps"},
	{reflect.TypeFor[InstalledApps](), "InstallAppsResult"},
	{reflect.TypeFor[Snapshot](), "Snapshot"},
}

func TestBodiesMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		if err := c.Struct(b.typ, b.schema, openapicheck.Response); err != nil {
			t.Error(err)
		}
	}
	if err := c.Covered(".", reflect.TypeFor[Plan]().PkgPath(), nil); err != nil {
		t.Errorf("types left out of the check:\n%v", err)
	}
}
