package api_test

import (
	"regexp"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// The API's table of routes (api.Routes) is the one list of the endpoints and their limits; the
// OpenAPI document and the provider's client pacing are held equal to it here, the one place
// that may import both halves.

// TestRoutesTable_openAPI: the document holds exactly the table's routes, each with an
// operationId, a tag, a summary, 500 and 429 (401 unless public), and a request body that is
// closed (additionalProperties: false) with 413 documented.
func TestRoutesTable_openAPI(t *testing.T) {
	doc, err := openapi.Document()
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	want := map[string]bool{}
	for _, rt := range api.Routes {
		want[rt.Method+" "+rt.Path] = true
		item := doc.Paths.Value(rt.Path)
		if item == nil {
			t.Errorf("path %s is missing", rt.Path)
			continue
		}
		op := item.GetOperation(rt.Method)
		if op == nil {
			t.Errorf("%s %s is missing", rt.Method, rt.Path)
			continue
		}
		if op.OperationID == "" || len(op.Tags) == 0 || op.Summary == "" {
			t.Errorf("%s %s needs an operationId, a tag and a summary", rt.Method, rt.Path)
		}
		if op.Responses.Value("500") == nil {
			t.Errorf("%s %s does not document 500", rt.Method, rt.Path)
		}
		if op.Responses.Value("429") == nil {
			t.Errorf("%s %s does not document 429", rt.Method, rt.Path)
		}
		if !rt.Public && op.Responses.Value("401") == nil {
			t.Errorf("%s %s does not document 401", rt.Method, rt.Path)
		}
		if op.RequestBody != nil {
			schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
			if schema.AdditionalProperties.Has == nil || *schema.AdditionalProperties.Has {
				t.Errorf("%s %s: request body must set additionalProperties: false", rt.Method, rt.Path)
			}
			if op.Responses.Value("413") == nil {
				t.Errorf("%s %s takes a body but does not document 413", rt.Method, rt.Path)
			}
		}
	}
	// And nothing beyond the table.
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !want[method+" "+path] {
				t.Errorf("%s %s is documented but not in api.Routes", method, path)
			}
		}
	}
}

// pathParam is a path parameter of the table ("{instance_id}"), which a request fills with an id.
var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)

// TestRoutesTable_clientPacing: the provider paces every route at the API's limit, and two routes
// share a budget in the client exactly when they share one in the API.
func TestRoutesTable_clientPacing(t *testing.T) {
	keyOfBucket := map[string]string{} // API bucket -> client key
	bucketOfKey := map[string]string{} // client key -> API bucket
	for _, rt := range api.Routes {
		path := pathParam.ReplaceAllString(rt.Path, "7")
		key, perMinute := client.PaceBudget(rt.Method, path)
		if perMinute != rt.PerMinute {
			t.Errorf("%s %s: the client paces %d a minute, the API allows %d", rt.Method, rt.Path, perMinute, rt.PerMinute)
		}
		bucket := rt.Bucket
		if bucket == "" {
			bucket = rt.Method + " " + rt.Path
		}
		if k, seen := keyOfBucket[bucket]; seen && k != key {
			t.Errorf("%s %s: the client counts it in %q, the other routes of the API's %q in %q", rt.Method, rt.Path, key, bucket, k)
		}
		if b, seen := bucketOfKey[key]; seen && b != bucket {
			t.Errorf("%s %s: the client counts it with %q in %q, which the API counts apart", rt.Method, rt.Path, b, key)
		}
		keyOfBucket[bucket], bucketOfKey[key] = key, bucket
	}
}
