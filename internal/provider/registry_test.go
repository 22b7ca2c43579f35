package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The kinds of type the provider registers, named as the folders of examples/ and docs/ that
// tfplugindocs reads and writes.
const (
	KindResource          = "resources"
	KindDataSource        = "data-sources"
	KindEphemeralResource = "ephemeral-resources"
	KindAction            = "actions"
	KindListResource      = "list-resources"
)

// Registered is one type the provider serves, read from the provider itself, so that the checks
// of what every type must have (registered_test.go) and the examples' acceptance tests follow the
// registration lists instead of lists of their own.
type Registered struct {
	Kind string // KindResource, ...
	Name string // the type name, "reseller_instance"
	// Importable and Identity say which import examples a resource needs: import.sh for
	// ImportState, import-by-identity.tf for a resource identity.
	Importable, Identity bool
}

// RegisteredTypes is every type of the provider in its registration order, kind by kind.
func RegisteredTypes(ctx context.Context) []Registered {
	p := New("test")().(*Provider)
	out := registeredResources(ctx, p)
	for _, newDS := range p.DataSources(ctx) {
		var meta datasource.MetadataResponse
		newDS().Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		out = append(out, Registered{Kind: KindDataSource, Name: meta.TypeName})
	}
	for _, newE := range p.EphemeralResources(ctx) {
		var meta ephemeral.MetadataResponse
		newE().Metadata(ctx, ephemeral.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		out = append(out, Registered{Kind: KindEphemeralResource, Name: meta.TypeName})
	}
	for _, newA := range p.Actions(ctx) {
		var meta action.MetadataResponse
		newA().Metadata(ctx, action.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		out = append(out, Registered{Kind: KindAction, Name: meta.TypeName})
	}
	for _, newL := range p.ListResources(ctx) {
		var meta resource.MetadataResponse
		newL().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		out = append(out, Registered{Kind: KindListResource, Name: meta.TypeName})
	}
	return out
}

// registeredResources reads the resources, with the import support that decides their examples.
func registeredResources(ctx context.Context, p *Provider) []Registered {
	var out []Registered
	for _, newR := range p.Resources(ctx) {
		r := newR()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		_, importable := r.(resource.ResourceWithImportState)
		_, identity := r.(resource.ResourceWithIdentity)
		out = append(out, Registered{Kind: KindResource, Name: meta.TypeName, Importable: importable, Identity: identity})
	}
	return out
}

// Examples are the example files tfplugindocs reads for the type, relative to examples/.
func (r Registered) Examples() []string {
	dir := r.Kind + "/" + r.Name + "/"
	switch r.Kind {
	case KindResource:
		files := []string{dir + "resource.tf"}
		if r.Importable {
			files = append(files, dir+"import.sh")
		}
		if r.Identity {
			files = append(files, dir+"import-by-identity.tf")
		}
		return files
	case KindDataSource:
		return []string{dir + "data-source.tf"}
	case KindEphemeralResource:
		return []string{dir + "ephemeral-resource.tf"}
	case KindAction:
		return []string{dir + "action.tf"}
	default:
		return []string{dir + "list-resource.tfquery.hcl"}
	}
}

// DocsPage is the page `make generate` writes for the type, relative to docs/.
func (r Registered) DocsPage() string {
	return r.Kind + "/" + r.Name[len(TypeName)+1:] + ".md"
}
