// Package schemacheck lets unit tests prove that a model struct and the schema it is read into
// agree, without Terraform or an API: every `tfsdk` tag must name a schema attribute and every
// schema attribute must have a tagged field. A mismatch otherwise only shows up at run time as
// a "Value Conversion Error" in front of a user.
package schemacheck

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	ephemeralschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Tags returns the `tfsdk` tag names of the struct (or pointer to struct) model, skipping
// fields tagged "-".
func Tags(model any) []string {
	t := reflect.TypeOf(model)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("tfsdk")
		if tag == "" || tag == "-" {
			continue
		}
		out = append(out, tag)
	}
	sort.Strings(out)
	return out
}

// Fields fails t unless the `tfsdk` tags of model are exactly the keys of attrs.
func Fields[A any](t testing.TB, name string, model any, attrs map[string]A) {
	t.Helper()
	tags := map[string]bool{}
	for _, tag := range Tags(model) {
		if tags[tag] {
			t.Errorf("%s: tfsdk tag %q used twice", name, tag)
		}
		tags[tag] = true
	}
	var missingInSchema, missingInModel []string
	for tag := range tags {
		if _, ok := attrs[tag]; !ok {
			missingInSchema = append(missingInSchema, tag)
		}
	}
	for attr := range attrs {
		if !tags[attr] {
			missingInModel = append(missingInModel, attr)
		}
	}
	sort.Strings(missingInSchema)
	sort.Strings(missingInModel)
	if len(missingInSchema) > 0 {
		t.Errorf("%s: model fields without a schema attribute: got %s, want none", name, strings.Join(missingInSchema, ", "))
	}
	if len(missingInModel) > 0 {
		t.Errorf("%s: schema attributes without a model field: got %s, want none", name, strings.Join(missingInModel, ", "))
	}
}

// Nested returns the attributes of the nested object of the list, set or single nested
// attribute called name, failing t when there is none.
func Nested(t testing.TB, attrs map[string]schema.Attribute, name string) map[string]schema.Attribute {
	t.Helper()
	switch a := attrs[name].(type) {
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		return a.NestedObject.Attributes
	case schema.SingleNestedAttribute:
		return a.Attributes
	default:
		t.Fatalf("attribute %q: got %T, want a nested attribute", name, attrs[name])
		return nil
	}
}

// Resource checks a resource's model against its schema in one call: the schema is valid, the
// `tfsdk` tags of model are exactly its attributes and blocks (the timeouts block is a field
// too), and model, filled as Read fills it, round-trips through the schema.
func Resource[M any](t testing.TB, name string, s resourceschema.Schema, model M) {
	t.Helper()
	validate(t, name, s)
	fields := map[string]any{}
	for n, a := range s.Attributes {
		fields[n] = a
	}
	for n, b := range s.Blocks {
		fields[n] = b
	}
	Fields(t, name, model, fields)
	RoundtripResource(t, s, model)
}

// DataSource checks a data source's model against its schema in one call: the schema is valid,
// the `tfsdk` tags of model are exactly its attributes, and model round-trips through the
// schema. The objects of nested attributes are checked with Fields and Nested.
func DataSource[M any](t testing.TB, name string, s schema.Schema, model M) {
	t.Helper()
	validate(t, name, s)
	Fields(t, name, model, s.Attributes)
	Roundtrip(t, s, model)
}

// Ephemeral is DataSource for an ephemeral resource.
func Ephemeral[M any](t testing.TB, name string, s ephemeralschema.Schema, model M) {
	t.Helper()
	validate(t, name, s)
	Fields(t, name, model, s.Attributes)
	RoundtripEphemeral(t, s, model)
}

// validate fails t when the framework would reject schema s when the provider starts.
func validate(t testing.TB, name string, s interface {
	ValidateImplementation(context.Context) diag.Diagnostics
}) {
	t.Helper()
	if diags := s.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("%s: invalid schema: %v", name, diags)
	}
}

// Roundtrip writes model into an empty state of schema s and reads it back, failing t on any
// conversion error. It proves that types match, including the element types of lists and the
// attribute types of nested objects, which a tag comparison cannot see.
func Roundtrip[M any](t testing.TB, s schema.Schema, model M) {
	t.Helper()
	roundtripState(t, tfsdk.State{Schema: s, Raw: null(s.Type())}, model)
}

// RoundtripResource is Roundtrip for a resource schema.
func RoundtripResource[M any](t testing.TB, s resourceschema.Schema, model M) {
	t.Helper()
	roundtripState(t, tfsdk.State{Schema: s, Raw: null(s.Type())}, model)
}

func roundtripState[M any](t testing.TB, state tfsdk.State, model M) {
	t.Helper()
	ctx := context.Background()
	if diags := state.Set(ctx, &model); diags.HasError() {
		t.Fatalf("writing the model into the schema: %v", diags)
	}
	var back M
	if diags := state.Get(ctx, &back); diags.HasError() {
		t.Fatalf("reading the model back from the schema: %v", diags)
	}
}

// RoundtripEphemeral is Roundtrip for an ephemeral resource schema.
func RoundtripEphemeral[M any](t testing.TB, s ephemeralschema.Schema, model M) {
	t.Helper()
	ctx := context.Background()
	result := tfsdk.EphemeralResultData{Schema: s, Raw: null(s.Type())}
	if diags := result.Set(ctx, &model); diags.HasError() {
		t.Fatalf("writing the model into the schema: %v", diags)
	}
	var back M
	if diags := result.Get(ctx, &back); diags.HasError() {
		t.Fatalf("reading the model back from the schema: %v", diags)
	}
}

// null is the null value of type typ, an empty state.
func null(typ attr.Type) tftypes.Value {
	return tftypes.NewValue(typ.TerraformType(context.Background()), nil)
}
