package api_test

import (
	"slices"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// service.Codes is the one list of the API's error codes; the OpenAPI document and the provider's
// client are held to it here.

// TestErrorCodes_openAPI: the ErrorCode enum holds exactly the codes of service.Codes, and the
// Error envelope uses it.
func TestErrorCodes_openAPI(t *testing.T) {
	doc, err := openapi.Document()
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	ref := doc.Components.Schemas["ErrorCode"]
	if ref == nil {
		t.Fatal("components.schemas.ErrorCode is missing")
	}
	var got []string
	for _, v := range ref.Value.Enum {
		got = append(got, v.(string))
	}
	for _, code := range service.Codes {
		if !slices.Contains(got, code) {
			t.Errorf("error code %q is not in the ErrorCode enum", code)
		}
	}
	if len(got) != len(service.Codes) {
		t.Errorf("ErrorCode enum has %d codes %v, want exactly %v", len(got), got, service.Codes)
	}
	code := doc.Components.Schemas["Error"].Value.Properties["error"].Value.Properties["code"]
	if code.Ref != "#/components/schemas/ErrorCode" {
		t.Errorf("Error.error.code refers to %q, want the ErrorCode schema", code.Ref)
	}
}

// TestErrorCodes_client: every code the provider's client names is one the API answers, and
// service.Codes names each code once.
func TestErrorCodes_client(t *testing.T) {
	for _, code := range client.Codes {
		if !slices.Contains(service.Codes, code) {
			t.Errorf("the client names %q, which the API never answers (service.Codes)", code)
		}
	}
	seen := map[string]bool{}
	for _, code := range service.Codes {
		if seen[code] {
			t.Errorf("service.Codes names %q twice", code)
		}
		seen[code] = true
	}
}
