package schemacheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
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

var testResourceSchema = resourceschema.Schema{
	Attributes: map[string]resourceschema.Attribute{
		"id": resourceschema.Int64Attribute{Computed: true},
	},
	Blocks: map[string]resourceschema.Block{
		"limits": resourceschema.SingleNestedBlock{Attributes: map[string]resourceschema.Attribute{
			"max": resourceschema.Int64Attribute{Optional: true},
		}},
	},
}

type limits struct {
	Max types.Int64 `tfsdk:"max"`
}

type withBlock struct {
	ID     types.Int64 `tfsdk:"id"`
	Limits *limits     `tfsdk:"limits"`
}

type withoutBlock struct {
	ID types.Int64 `tfsdk:"id"`
}

func TestResource(t *testing.T) {
	r := &recorder{TB: t}
	Resource(r, "good", testResourceSchema, withBlock{ID: types.Int64Value(1), Limits: &limits{Max: types.Int64Value(2)}})
	if len(r.failures) != 0 {
		t.Errorf("matching model: got failures %v, want none", r.failures)
	}
	r = &recorder{TB: t}
	Resource(r, "no block", testResourceSchema, withoutBlock{ID: types.Int64Value(1)})
	if len(r.failures) == 0 || !strings.Contains(r.failures[0], "limits") {
		t.Errorf("model without the block's field: got failures %v, want one naming limits", r.failures)
	}
	invalid := resourceschema.Schema{Attributes: map[string]resourceschema.Attribute{"ID": resourceschema.Int64Attribute{Computed: true}}}
	r = &recorder{TB: t}
	Resource(r, "invalid", invalid, withoutBlock{ID: types.Int64Value(1)})
	if len(r.failures) == 0 || !strings.Contains(r.failures[0], "invalid schema") {
		t.Errorf("invalid attribute name: got failures %v, want an invalid schema", r.failures)
	}
}

func TestDataSource(t *testing.T) {
	r := &recorder{TB: t}
	DataSource(r, "good", testSchema, good{ID: types.Int64Value(1), Name: types.StringValue("a")})
	if len(r.failures) != 0 {
		t.Errorf("matching model: got failures %v, want none", r.failures)
	}
	r = &recorder{TB: t}
	DataSource(r, "mistyped", testSchema, mistyped{ID: types.StringValue("1"), Name: types.StringValue("a")})
	if len(r.failures) == 0 {
		t.Errorf("mistyped model: got no failure, want one")
	}
}
