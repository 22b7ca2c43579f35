package schemacheck

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// recorder collects failures instead of failing the real test, so the checks themselves can be
// shown to fail on a mismatch.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

var testSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"id":   schema.Int64Attribute{Computed: true},
	"name": schema.StringAttribute{Computed: true},
}}

type good struct {
	ID   types.Int64  `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

type misnamed struct {
	ID   types.Int64  `tfsdk:"id"`
	Name types.String `tfsdk:"title"`
}

type mistyped struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

func TestFields(t *testing.T) {
	r := &recorder{TB: t}
	Fields(r, "good", good{}, testSchema.Attributes)
	if len(r.failures) != 0 {
		t.Errorf("matching model: got failures %v, want none", r.failures)
	}
	r = &recorder{TB: t}
	Fields(r, "misnamed", misnamed{}, testSchema.Attributes)
	if len(r.failures) != 2 {
		t.Errorf("misnamed model: got %d failures %v, want 2 (extra field, missing attribute)", len(r.failures), r.failures)
	}
}

func TestRoundtrip(t *testing.T) {
	r := &recorder{TB: t}
	Roundtrip(r, testSchema, good{ID: types.Int64Value(1), Name: types.StringValue("a")})
	if len(r.failures) != 0 {
		t.Errorf("matching model: got failures %v, want none", r.failures)
	}
	r = &recorder{TB: t}
	Roundtrip(r, testSchema, mistyped{ID: types.StringValue("1"), Name: types.StringValue("a")})
	if len(r.failures) == 0 {
		t.Errorf("mistyped model: got no failure, want one")
	}
}
