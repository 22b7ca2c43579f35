package provider_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// Seeded catalogue (backend README): plans 101 and 102 in datacenter 1; templates 1 and 3 Linux,
// 5 Windows (which forces a feature); feature 2 is automatic backups.
const (
	adoptPlanSmall  = 101
	adoptPlanMedium = 102
	adoptUbuntu     = 1
	adoptDebian     = 3
	adoptWindows    = 5
)

// TestAccQuery_generateConfig is adopting an account: servers and a snapshot made outside
// Terraform (a plain server; one with a feature, a name, a note, renew off and switched off; a
// Windows server; a server built from the snapshot) are found by `terraform query
// -generate-config-out`, the configuration it writes plans nothing but the imports, and after
// applying them the next plan has no changes. Nothing is ordered by the adoption. The example
// queries of the documentation run as well.
func TestAccQuery_generateConfig(t *testing.T) {
	cli := acctest.NewQueryCLI(t)
	b := acctest.StartBackend(t)
	ubuntu, debian, windows := int64(adoptUbuntu), int64(adoptDebian), int64(adoptWindows)
	web := b.CreateServer(t, "web", client.CreateInstanceRequest{ServerID: adoptPlanSmall, TemplateID: &ubuntu, Hostname: new("web-1")})
	ops := b.CreateServer(t, "ops", client.CreateInstanceRequest{ServerID: adoptPlanSmall, TemplateID: &debian,
		Hostname: new("ops-1"), ActiveFeatures: []string{"2"}})
	b.CreateServer(t, "win", client.CreateInstanceRequest{ServerID: adoptPlanMedium, TemplateID: &windows})
	snap := b.TakeSnapshot(t, web.ID, "golden")
	b.CreateServer(t, "clone", client.CreateInstanceRequest{ServerID: adoptPlanMedium, SnapshotID: &snap.ID})
	renew := false
	if _, err := b.Client(t, "en").UpdateInstance(t.Context(), ops.ID, client.UpdateInstanceRequest{
		Name: new("Ops box"), Note: new("owned by ops"), Renew: &renew,
	}); err != nil {
		t.Fatalf("renaming server %d outside Terraform: %v", ops.ID, err)
	}
	b.ServerAction(t, ops.ID, client.ActionPowerOff)
	ordersBefore := len(b.Orders(t))

	cli.Write("main.tf", acctest.ProviderRequirement()+b.ProviderConfig())
	cli.Write("adopt.tfquery.hcl", acctest.ListBlock("reseller_instance", "all", false)+
		acctest.ListBlock("reseller_snapshot", "all", false))
	cli.Run([]string{"query", "-generate-config-out=generated.tf"})
	generated := cli.Read("generated.tf")
	for _, want := range []string{`name\s+= "Ops box"`, `note\s+= "owned by ops"`, `power\s+= "off"`, `renew\s+= false`} {
		if !regexp.MustCompile(want).MatchString(generated) {
			t.Errorf("the generated configuration lacks %s:\n%s", want, generated)
		}
	}

	cli.Run([]string{"plan", "-out=adopt.tfplan"})
	changes := cli.PlannedChanges("adopt.tfplan")
	if len(changes) != 5 {
		t.Fatalf("the plan has %d changes, want the import of 4 servers and 1 snapshot:\n%s", len(changes), generated)
	}
	for _, rc := range changes {
		if !slices.Equal(rc.Change.Actions, []string{"no-op"}) || len(rc.Change.Importing) == 0 {
			out, _ := cli.Run([]string{"show", "adopt.tfplan"})
			t.Fatalf("%s: actions %v, importing %s; want an import and nothing else:\n%s\n%s",
				rc.Address, rc.Change.Actions, rc.Change.Importing, out, generated)
		}
	}
	cli.Run([]string{"apply", "adopt.tfplan"})
	if out, code := cli.Run([]string{"plan", "-detailed-exitcode"}, 0, 2); code != 0 {
		t.Fatalf("the plan after the imports has changes:\n%s\n%s", out, generated)
	}
	if n := len(b.Orders(t)); n != ordersBefore {
		t.Errorf("the adoption placed %d orders", n-ordersBefore)
	}

	// The documentation's queries run too; the instance one finds web-1 by its filters.
	cli.Remove("adopt.tfquery.hcl")
	for _, typ := range []string{"reseller_instance", "reseller_snapshot"} {
		src, err := os.ReadFile(filepath.Join(examplesDir, "list-resources", typ, "list-resource.tfquery.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		cli.Write(typ+".tfquery.hcl", string(src))
	}
	if out, _ := cli.Run([]string{"query"}); !regexp.MustCompile(`list\.reseller_instance\.web +id=\d+.* web-1`).MatchString(out) {
		t.Errorf("the example query did not find web-1:\n%s", out)
	}
}
