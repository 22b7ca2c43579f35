package snapshot_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// TestAccSnapshotList_filters: snapshots taken outside Terraform (two of one server, one of them
// deleted since, and one of another server) are found by terraform query with each filter of the
// list resource, and a filter that matches nothing finds none.
func TestAccSnapshotList_filters(t *testing.T) {
	b := acctest.StartBackend(t)
	tmpl := int64(tmplUbuntu)
	web := b.CreateServer(t, "web", client.CreateInstanceRequest{ServerID: planSmall, TemplateID: &tmpl})
	db := b.CreateServer(t, "db", client.CreateInstanceRequest{ServerID: planSmall, TemplateID: &tmpl})
	webKept := b.TakeSnapshot(t, web.ID, "web kept")
	webGone := b.TakeSnapshot(t, web.ID, "web gone")
	dbKept := b.TakeSnapshot(t, db.ID, "db kept")
	if _, err := b.Client(t, "en").DeleteSnapshot(context.Background(), webGone.ID); err != nil {
		t.Fatalf("deleting snapshot %d outside Terraform: %v", webGone.ID, err)
	}

	const typ = "reseller_snapshot"
	query := acctest.ListBlock(typ, "all", false) +
		acctest.ListBlock(typ, "everything", false, "include_inactive = true") +
		acctest.ListBlock(typ, "web", true, fmt.Sprintf("instance_id = %d", web.ID)) +
		acctest.ListBlock(typ, "deleted", false, `status = "deleted"`, "include_inactive = true") +
		acctest.ListBlock(typ, "available", false, `status = "available"`) +
		acctest.ListBlock(typ, "none", false, "instance_id = 999999")
	var checks []querycheck.QueryResultCheck
	for address, ids := range map[string][]int64{
		"all":        {webKept.ID, dbKept.ID},
		"everything": {webKept.ID, webGone.ID, dbKept.ID},
		"web":        {webKept.ID},
		"deleted":    {webGone.ID},
		"available":  {webKept.ID, dbKept.ID},
		"none":       {},
	} {
		checks = append(checks, acctest.ExpectFound(typ+"."+address, ids)...)
	}
	webResult := queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": knownvalue.Int64Exact(webKept.ID)})
	checks = append(checks,
		querycheck.ExpectResourceDisplayName(typ+".web", webResult, knownvalue.StringExact("web kept (available)")),
		querycheck.ExpectResourceKnownValues(typ+".web", webResult, []querycheck.KnownValueCheck{
			{Path: tfjsonpath.New("instance_id"), KnownValue: knownvalue.Int64Exact(web.ID)},
			{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact("web kept")},
			{Path: tfjsonpath.New("status"), KnownValue: knownvalue.StringExact(client.SnapshotAvailable)},
		}),
	)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{acctest.SkipWithoutQuery()},
		Steps: []resource.TestStep{
			{Config: b.ProviderConfig()},
			{Query: true, Config: query, QueryResultChecks: checks},
		},
	})
}
