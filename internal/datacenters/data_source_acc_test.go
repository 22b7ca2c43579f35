package datacenters_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

func listDatacenters(t *testing.T, b *acctest.Backend, lang string) []client.Datacenter {
	t.Helper()
	dcs, err := b.Client(t, lang).ListDatacenters(context.Background())
	if err != nil {
		t.Fatalf("listing datacenters from the backend: %v", err)
	}
	return dcs
}

// sameIDs checks the datacenters in state against the backend's list, in order, and applies
// extra to the items.
func sameIDs(want []client.Datacenter, extra func(items []map[string]any) error) knownvalue.Check {
	return acctest.Objects("datacenters", func(items []map[string]any) error {
		if len(items) != len(want) {
			return fmt.Errorf("got %d datacenters, want %d", len(items), len(want))
		}
		for i, it := range items {
			id, err := acctest.Int64Of(it, "id")
			if err != nil {
				return err
			}
			if id != want[i].ID {
				return fmt.Errorf("datacenter %d: got id %d, want %d", i, id, want[i].ID)
			}
		}
		return extra(items)
	})
}

func countKYC(items []map[string]any) int {
	n := 0
	for _, it := range items {
		if it["require_kyc"] == true {
			n++
		}
	}
	return n
}

// TestAccDatacenters_basic: the datacenter that needs an identity check is hidden until the
// account passes it; the one in maintenance is listed with its status.
func TestAccDatacenters_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	before := listDatacenters(t, b, "en")
	if err := b.Server.SetKYCVerified(context.Background(), b.AccountID, true); err != nil {
		t.Fatal(err)
	}
	after := listDatacenters(t, b, "en")
	if err := b.Server.SetKYCVerified(context.Background(), b.AccountID, false); err != nil {
		t.Fatal(err)
	}
	if len(after) <= len(before) {
		t.Fatalf("backend: got %d datacenters after KYC and %d before, want more after", len(after), len(before))
	}
	first := before[0]
	const ds = "data.reseller_datacenters.all"
	config := `data "reseller_datacenters" "all" {}`

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: b.ProviderConfig() + config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("datacenters"), sameIDs(before, func(items []map[string]any) error {
						if n := countKYC(items); n != 0 {
							return fmt.Errorf("got %d datacenters with require_kyc before the identity check, want 0", n)
						}
						for _, it := range items {
							if it["status"] != "available" {
								return nil
							}
						}
						return fmt.Errorf("got every datacenter available, want the one in maintenance listed too")
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("datacenters").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id":          knownvalue.Int64Exact(first.ID),
						"name":        knownvalue.StringExact(first.Name),
						"description": knownvalue.StringExact(*first.Description),
						"status":      knownvalue.StringExact(*first.Status),
						"enabled":     knownvalue.Bool(first.Enabled),
						"require_kyc": knownvalue.Bool(false),
						"terms":       knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("hourly")}),
						// resellerd's extension: datacenter 1 keeps snapshots apart from the server.
						"local_snapshots": knownvalue.Bool(false),
					})),
				},
			},
			{
				PreConfig: func() {
					if err := b.Server.SetKYCVerified(context.Background(), b.AccountID, true); err != nil {
						t.Fatal(err)
					}
				},
				Config: b.ProviderConfig() + config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("datacenters"), sameIDs(after, func(items []map[string]any) error {
						if n := countKYC(items); n != 1 {
							return fmt.Errorf("got %d datacenters with require_kyc after the identity check, want 1", n)
						}
						return nil
					})),
				},
			},
		},
	})
}

func TestAccDatacenters_persian(t *testing.T) {
	b := acctest.StartBackend(t)
	fa := listDatacenters(t, b, "fa")
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfigLanguage("fa") + `data "reseller_datacenters" "all" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.reseller_datacenters.all", tfjsonpath.New("datacenters").AtSliceIndex(0).AtMapKey("name"),
					knownvalue.StringExact(fa[0].Name)),
				statecheck.ExpectKnownValue("data.reseller_datacenters.all", tfjsonpath.New("datacenters").AtSliceIndex(0).AtMapKey("name"),
					knownvalue.StringRegexp(regexp.MustCompile(`\p{Arabic}`))),
			},
		}},
	})
}
