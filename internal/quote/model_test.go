package quote

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	ctx := context.Background()
	s := Schema()

	m := Model{
		PlanID:     types.Int64Value(1),
		TemplateID: types.Int64Value(2),
		Features:   types.SetValueMust(types.StringType, []attr.Value{types.StringValue("5"), types.StringValue("3")}),
	}
	req, diags := m.request(ctx)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if req.ServerID != 1 || req.TemplateID == nil || *req.TemplateID != 2 || len(req.ActiveFeatures) != 2 || req.ActiveFeatures[0] != "3" {
		t.Errorf("request: got %+v, want server 1, template 2, features [3 5]", req)
	}
	if diags := m.setQuote(ctx, client.Quote{Cost: 1.5, ActiveFeatures: []string{"3", "5", "7"}}); diags.HasError() {
		t.Fatal(diags)
	}
	schemacheck.DataSource(t, "reseller_quote", s, m)

	empty := Model{PlanID: types.Int64Value(1), Features: types.SetNull(types.StringType)}
	req, _ = empty.request(ctx)
	if req.TemplateID != nil || len(req.ActiveFeatures) != 0 {
		t.Errorf("request without options: got %+v, want no template and no features", req)
	}
	if diags := empty.setQuote(ctx, client.Quote{}); diags.HasError() {
		t.Fatal(diags)
	}
	schemacheck.DataSource(t, "reseller_quote", s, empty)
}
