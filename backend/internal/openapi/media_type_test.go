package openapi

import "testing"

// TestBodiesDocument415 checks that every operation taking a body lists 415
// unsupported_media_type, the answer to a body that is not sent as application/json.
func TestBodiesDocument415(t *testing.T) {
	doc := mustDoc(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody != nil && op.Responses.Value("415") == nil {
				t.Errorf("%s %s takes a body but does not document 415", method, path)
			}
		}
	}
}
