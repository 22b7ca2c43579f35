package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

func TestSchemaAndModelAgree(t *testing.T) {
	p := New("test")()
	var resp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatal(diags)
	}
	want := map[string]bool{}
	for _, tag := range []string{"endpoint", "alt_endpoint", "api_key", "language", "max_retries", "rate_limit_scale", "detailed_refresh", "plan_checks"} {
		want[tag] = true
	}
	for name := range resp.Schema.Attributes {
		if !want[name] {
			t.Errorf("schema attribute %q: not in the model", name)
		}
		delete(want, name)
	}
	for name := range want {
		t.Errorf("model field %q: not in the schema", name)
	}
	if !resp.Schema.Attributes["api_key"].IsSensitive() {
		t.Errorf("api_key sensitive: got false, want true")
	}
}

// TestDataSourcesRegistered checks every data source has a distinct type name and a schema whose
// attributes all carry a description, since the docs are generated from them. That every type
// with examples and a docs page is registered is TestRegisteredTypesHaveExamplesAndDocs's.
func TestDataSourcesRegistered(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	seen := map[string]bool{}
	for _, newDS := range p.DataSources(ctx) {
		ds := newDS()
		var meta datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		if seen[meta.TypeName] {
			t.Errorf("type name %q registered twice", meta.TypeName)
		}
		seen[meta.TypeName] = true
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		if sr.Schema.MarkdownDescription == "" {
			t.Errorf("%s: schema has no description", meta.TypeName)
		}
		for name, a := range sr.Schema.Attributes {
			if a.GetMarkdownDescription() == "" {
				t.Errorf("%s.%s: attribute has no description", meta.TypeName, name)
			}
		}
	}
}

// TestResourcesRegistered checks the resources and ephemeral resources like the data sources.
func TestResourcesRegistered(t *testing.T) {
	ctx := context.Background()
	p := New("test")().(*Provider)
	for _, newR := range p.Resources(ctx) {
		r := newR()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		if diags := sr.Schema.ValidateImplementation(ctx); diags.HasError() {
			t.Errorf("%s: %v", meta.TypeName, diags)
		}
		for name, a := range sr.Schema.Attributes {
			if a.GetMarkdownDescription() == "" {
				t.Errorf("%s.%s: attribute has no description", meta.TypeName, name)
			}
		}
	}
	for _, newE := range p.EphemeralResources(ctx) {
		e := newE()
		var meta ephemeral.MetadataResponse
		e.Metadata(ctx, ephemeral.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		var sr ephemeral.SchemaResponse
		e.Schema(ctx, ephemeral.SchemaRequest{}, &sr)
		for name, a := range sr.Schema.Attributes {
			if a.GetMarkdownDescription() == "" {
				t.Errorf("%s.%s: attribute has no description", meta.TypeName, name)
			}
		}
	}
}
