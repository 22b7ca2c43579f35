package account_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

func TestAccAccount_basic(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithLimits(7, 3), acctest.WithAccountLanguage("fa"))
	want, err := b.Client(t, "en").GetAccount(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want.APIKeyHint == nil || !strings.HasPrefix(b.APIKey, *want.APIKeyHint) {
		t.Fatalf("backend api_key_hint: got %v, want a prefix of the key", want.APIKeyHint)
	}
	const ds = "data.reseller_account.me"
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + `data "reseller_account" "me" {}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("id"), knownvalue.Int64Exact(b.AccountID)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("api_key_hint"), knownvalue.StringExact(*want.APIKeyHint)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("api_key_hint"), knownvalue.StringFunc(func(v string) error {
					if v == "" || !strings.HasPrefix(b.APIKey, v) || v == b.APIKey {
						return errString("api_key_hint must be a proper prefix of the key")
					}
					return nil
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("api_key_created_at"),
					knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T`))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("webhook_configured"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("server_limit"), knownvalue.Int64Exact(7)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("api_order_limit"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("language"), knownvalue.StringExact("fa")),
			},
		}},
	})
}

type errString string

func (e errString) Error() string { return string(e) }

// TestAccBalance_basic checks the wallet of a fresh account, then a top-up made through the
// backend between two runs.
func TestAccBalance_basic(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithBalance(42.5))
	const ds = "data.reseller_balance.wallet"
	config := b.ProviderConfig() + `data "reseller_balance" "wallet" {}`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("balance"), knownvalue.Float64Exact(42.5)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("debt"), knownvalue.Float64Exact(0)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("reserved"), knownvalue.Float64Exact(0)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("available"), knownvalue.Float64Exact(42.5)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("hours_until_balance_zero"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("active_instances"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pending_orders"), knownvalue.Int64Exact(0)),
				},
			},
			{
				PreConfig: func() {
					if err := b.Server.TopUp(context.Background(), b.AccountID, 7_250_000, "card"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("balance"), knownvalue.Float64Exact(49.75)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("available"), knownvalue.Float64Exact(49.75)),
				},
			},
		},
	})
}

// TestAccAccount_blocked: a blocked account's error carries the API's code.
func TestAccAccount_blocked(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t)
	if err := b.Server.SetBlocked(context.Background(), b.AccountID, true); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      b.ProviderConfig() + `data "reseller_balance" "wallet" {}`,
			ExpectError: acctest.ErrorRegexp(`Unable to read the wallet balance.*Error code: forbidden`),
		}},
	})
}
