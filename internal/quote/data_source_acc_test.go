package quote_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// windowsPlan returns a plan with a Windows template and a feature that Windows forces on, plus
// one optional feature that nothing forces.
func windowsPlan(t *testing.T, b *acctest.Backend) (p client.Plan, windows client.Template, forced, optional client.Feature) {
	t.Helper()
	plans, err := b.Client(t, "en").ListPlans(context.Background(), client.PlanFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		var w client.Template
		for _, tmpl := range p.Templates {
			if tmpl.OSType == "windows" {
				w = tmpl
			}
		}
		var f, o client.Feature
		for _, feat := range p.Features {
			if slices.Contains(feat.RequiredForOSTypes, "windows") {
				f = feat
			} else if len(feat.RequiredForOSTypes) == 0 && o.ID == 0 {
				o = feat
			}
		}
		if w.ID != 0 && f.ID != 0 && o.ID != 0 {
			return p, w, f, o
		}
	}
	t.Fatal("backend: no plan with a Windows template, a feature Windows forces and an optional feature")
	return
}

func id(f client.Feature) string { return strconv.FormatInt(f.ID, 10) }

func quoteChecks(ds string, q *client.Quote) []statecheck.StateCheck {
	active := make([]knownvalue.Check, 0, len(q.ActiveFeatures))
	for _, f := range q.ActiveFeatures {
		active = append(active, knownvalue.StringExact(f))
	}
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("cost"), knownvalue.Float64Exact(q.Cost)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("creation_fee"), knownvalue.Float64Exact(q.CreationFee)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("recurring"), knownvalue.Float64Exact(q.Recurring)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("balance"), knownvalue.Float64Exact(q.Balance)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("reserved"), knownvalue.Float64Exact(q.Reserved)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("sufficient_balance"), knownvalue.Bool(q.SufficientBalance)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("difference"), knownvalue.Float64Exact(q.Difference)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("active_features"), knownvalue.SetExact(active)),
	}
}

// TestAccQuote_basic prices a plan with one optional feature and compares the whole quote with
// the backend's answer for the same request.
func TestAccQuote_basic(t *testing.T) {
	b := acctest.StartBackend(t)
	p, _, _, optional := windowsPlan(t, b)
	want, err := b.Client(t, "en").Quote(context.Background(), client.QuoteRequest{
		ServerID: p.ID, Term: "hourly", ActiveFeatures: []string{id(optional)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !want.SufficientBalance || !slices.Contains(want.ActiveFeatures, id(optional)) {
		t.Fatalf("backend quote: got %+v, want sufficient balance and feature %s active", want, id(optional))
	}
	checks := quoteChecks("data.reseller_quote.q", want)
	checks = append(checks, statecheck.ExpectKnownValue("data.reseller_quote.q", tfjsonpath.New("template_id"), knownvalue.Null()))

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_quote" "q" {
  plan_id  = %d
  features = [%q]
}
`, p.ID, id(optional)),
			ConfigStateChecks: checks,
		}},
	})
}

// TestAccQuote_windowsSmallWallet: a Windows template forces its feature into the quote even when
// not asked for, and a wallet of a tenth of a cent does not cover the first charge.
func TestAccQuote_windowsSmallWallet(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithBalance(0.001))
	p, windows, forced, _ := windowsPlan(t, b)
	want, err := b.Client(t, "en").Quote(context.Background(), client.QuoteRequest{ServerID: p.ID, Term: "hourly", TemplateID: &windows.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want.SufficientBalance || !slices.Contains(want.ActiveFeatures, id(forced)) {
		t.Fatalf("backend quote: got %+v, want insufficient balance and feature %s forced", want, id(forced))
	}
	const ds = "data.reseller_quote.q"
	checks := quoteChecks(ds, want)
	checks = append(checks,
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("active_features"), knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact(id(forced))})),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("sufficient_balance"), knownvalue.Bool(false)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("balance"), knownvalue.Float64Exact(0.001)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("difference"), knownvalue.Float64Func(func(v float64) error {
			if v <= 0 {
				return fmt.Errorf("got difference %v, want more than 0", v)
			}
			return nil
		})),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("features"), knownvalue.Null()),
	)

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: b.ProviderConfig() + fmt.Sprintf(`
data "reseller_template" "windows" {
  plan_id = %d
  os_type = "windows"
}

data "reseller_quote" "q" {
  plan_id     = %d
  template_id = data.reseller_template.windows.id
}
`, p.ID, p.ID),
			ConfigStateChecks: checks,
		}},
	})
}

func TestAccQuote_errors(t *testing.T) {
	b := acctest.StartBackend(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      b.ProviderConfig() + `data "reseller_quote" "q" { plan_id = 987654 }`,
				ExpectError: acctest.ErrorRegexp(`Plan not found.*plan 987654`),
			},
			{
				Config: b.ProviderConfig() + `
data "reseller_quote" "q" {
  plan_id  = 1
  features = ["ipv4"]
}
`,
				ExpectError: acctest.ErrorRegexp(`features.*must be a feature id`),
			},
		},
	})
}
