package instance_test

import (
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

// TestAccInstanceList_filters: servers ordered outside Terraform (two web servers in two
// datacenters, a database server switched off, a canceled one) are found by terraform query with
// each filter of the list resource, a filter that matches nothing finds none, and a bad regex is
// refused at plan time naming name_regex.
func TestAccInstanceList_filters(t *testing.T) {
	b := acctest.StartBackend(t)
	web1 := b.CreateServer(t, "web-1", client.CreateInstanceRequest{ServerID: planSmall, TemplateID: new(int64(tmplUbuntu)), Hostname: new("web-1")})
	db1 := b.CreateServer(t, "db-1", client.CreateInstanceRequest{ServerID: planMedium, TemplateID: new(int64(tmplDebian)), Hostname: new("db-1")})
	web2 := b.CreateServer(t, "web-2", client.CreateInstanceRequest{ServerID: planPaidIP, TemplateID: new(int64(tmplUbuntu)), Hostname: new("web-2")})
	old := b.CreateServer(t, "old-1", client.CreateInstanceRequest{ServerID: planSmall, TemplateID: new(int64(tmplUbuntu)), Hostname: new("old-1")})
	b.ServerAction(t, db1.ID, client.ActionPowerOff)
	b.CancelServer(t, old.ID)

	const typ = "reseller_instance"
	query := acctest.ListBlock(typ, "all", false) +
		acctest.ListBlock(typ, "everything", false, "only_active = false") +
		acctest.ListBlock(typ, "offline", false, `status = "offline"`) +
		acctest.ListBlock(typ, "dc", false, fmt.Sprintf("datacenter_id = %d", *web2.DatacenterID)) +
		acctest.ListBlock(typ, "location", false, fmt.Sprintf("location_id = %d", *web2.LocationID)) +
		acctest.ListBlock(typ, "plan", false, fmt.Sprintf("plan_id = %d", planMedium)) +
		acctest.ListBlock(typ, "web", false, `name_regex = "^web-"`) +
		acctest.ListBlock(typ, "none", false, `name_regex = "^nothing$"`) +
		acctest.ListBlock(typ, "db", true, `name_regex = "^db-"`)
	var checks []querycheck.QueryResultCheck
	for address, ids := range map[string][]int64{
		"all":        {web1.ID, db1.ID, web2.ID},
		"everything": {web1.ID, db1.ID, web2.ID, old.ID},
		"offline":    {db1.ID},
		"dc":         {web2.ID},
		"location":   {web2.ID},
		"plan":       {db1.ID},
		"web":        {web1.ID, web2.ID},
		"none":       {},
		"db":         {db1.ID},
	} {
		checks = append(checks, acctest.ExpectFound(typ+"."+address, ids, "order_id")...)
	}
	dbResult := queryfilter.ByResourceIdentity(map[string]knownvalue.Check{
		"id": knownvalue.Int64Exact(db1.ID), "order_id": knownvalue.Null(),
	})
	checks = append(checks,
		querycheck.ExpectResourceDisplayName(typ+".db", dbResult, knownvalue.StringExact("db-1")),
		querycheck.ExpectResourceKnownValues(typ+".db", dbResult, []querycheck.KnownValueCheck{
			{Path: tfjsonpath.New("plan_id"), KnownValue: knownvalue.Int64Exact(planMedium)},
			{Path: tfjsonpath.New("template_id"), KnownValue: knownvalue.Int64Exact(tmplDebian)},
			{Path: tfjsonpath.New("power"), KnownValue: knownvalue.StringExact("off")},
			{Path: tfjsonpath.New("status"), KnownValue: knownvalue.StringExact("offline")},
		}),
	)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{acctest.SkipWithoutQuery()},
		Steps: []resource.TestStep{
			{Config: b.ProviderConfig()},
			{Query: true, Config: query, QueryResultChecks: checks},
			{
				Query:       true,
				Config:      acctest.ListBlock(typ, "bad", false, `name_regex = "web-("`),
				ExpectError: acctest.ErrorRegexp(`Invalid regular expression.*name_regex`),
			},
		},
	})
}
