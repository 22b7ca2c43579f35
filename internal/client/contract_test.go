package client

import (
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/openapicheck"
)

// The client's wire types are written by hand, not generated from openapi.yaml: oapi-codegen
// makes every optional field a pointer, every enum a named type and IPv4 `Ipv4`, and emits a
// type per error answer of every operation, so the provider would change in dozens of places
// for nothing on the wire. This test holds each type to its schema of the backend's OpenAPI
// document instead, both ways; nested types (Price in Plan, Credentials in Instance...) are
// checked inside their parents.

// wireTypes pairs every wire type of the client with its component schema.
var wireTypes = []struct {
	typ    reflect.Type
	schema string
	dir    openapicheck.Direction
}{
	{reflect.TypeFor[Health](), "Health", openapicheck.Response},
	{reflect.TypeFor[Dollar](), "Dollar", openapicheck.Response},
	{reflect.TypeFor[Plan](), "Plan", openapicheck.Response},
	{reflect.TypeFor[Datacenter](), "Datacenter", openapicheck.Response},
	{reflect.TypeFor[Location](), "Location", openapicheck.Response},
	{reflect.TypeFor[App](), "App", openapicheck.Response},
	{reflect.TypeFor[Account](), "Account", openapicheck.Response},
	{reflect.TypeFor[Balance](), "Balance", openapicheck.Response},
	{reflect.TypeFor[Payment](), "Payment", openapicheck.Response},
	{reflect.TypeFor[QuoteRequest](), "QuoteRequest", openapicheck.Request},
	{reflect.TypeFor[Quote](), "Quote", openapicheck.Response},
	{reflect.TypeFor[Meta](), "Meta", openapicheck.Response},
	{reflect.TypeFor[WebhookSettings](), "WebhookSettings", openapicheck.Response},
	{reflect.TypeFor[WebhookRequest](), "WebhookRequest", openapicheck.Request},
	{reflect.TypeFor[WebhookTestResult](), "WebhookTestResult", openapicheck.Response},
	{reflect.TypeFor[Instance](), "InstanceDetail", openapicheck.Response},
	{reflect.TypeFor[Order](), "Order", openapicheck.Response},
	{reflect.TypeFor[CreateInstanceRequest](), "CreateInstanceRequest", openapicheck.Request},
	{reflect.TypeFor[CreatedOrder](), "CreateInstanceResult", openapicheck.Response},
	{reflect.TypeFor[UpdateInstanceRequest](), "UpdateInstanceRequest", openapicheck.Request},
	{reflect.TypeFor[CanceledInstance](), "CancelInstanceResult", openapicheck.Response},
	{reflect.TypeFor[ActionRequest](), "ActionRequest", openapicheck.Request},
	{reflect.TypeFor[ActionResult](), "ActionResult", openapicheck.Response},
	{reflect.TypeFor[ResizeOptions](), "ResizeOptions", openapicheck.Response},
	{reflect.TypeFor[Traffic](), "Traffic", openapicheck.Response},
	{reflect.TypeFor[InstanceApps](), "InstanceApps", openapicheck.Response},
	{reflect.TypeFor[InstallAppsRequest](), "InstallAppsRequest", openapicheck.Request},
	{reflect.TypeFor[InstalledApps](), "InstallAppsResult", openapicheck.Response},
	{reflect.TypeFor[Snapshot](), "Snapshot", openapicheck.Response},
	{reflect.TypeFor[CreateSnapshotRequest](), "CreateSnapshotRequest", openapicheck.Request},
	{reflect.TypeFor[UpdateSnapshotRequest](), "UpdateSnapshotRequest", openapicheck.Request},
	{reflect.TypeFor[SnapshotSettings](), "SnapshotSettings", openapicheck.Response},
}

// notWire names the structs of this package with json tags that are not one schema of the
// document, and why.
var notWire = map[string]string{
	"envelope":  "reads every envelope, success or error, and bodies from proxies that are no envelope",
	"errorBody": "part of the envelope reader: tolerant of foreign bodies by design (a null reference reads as none)",
}

func TestWireTypesMatchOpenAPI(t *testing.T) {
	c, err := openapicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wireTypes {
		if err := c.Struct(w.typ, w.schema, w.dir); err != nil {
			t.Error(err)
		}
	}
	pkg := reflect.TypeFor[Meta]().PkgPath()
	if err := c.Covered(".", pkg, notWire); err != nil {
		t.Errorf("wire types left out of the check:\n%v", err)
	}
}
