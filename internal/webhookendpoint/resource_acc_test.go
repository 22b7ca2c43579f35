package webhookendpoint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
	"github.com/reseller/terraform-provider-reseller/internal/client"
)

const res = "reseller_webhook.test"

// Secrets of the tests: 16 to 256 characters.
const (
	secretOne   = "first-secret-0123456789"
	secretTwo   = "second-secret-abcdefghij"
	secretThree = "third-secret-never-sent-xyz"
)

func testCase(t *testing.T, b *acctest.Backend, s ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             b.CheckNoWebhook(t),
		Steps:                    s,
	}
}

// registered checks that the backend has the webhook registered at url.
func registered(t *testing.T, b *acctest.Backend, url string) error {
	t.Helper()
	w, err := b.Client(t, "en").GetWebhook(context.Background())
	if err != nil {
		return err
	}
	if !w.Configured || w.URL == nil || *w.URL != url {
		return fmt.Errorf("backend webhook: got configured %v url %v, want %s", w.Configured, w.URL, url)
	}
	return nil
}

// pings checks that the receiver verified n pings (with the secret it holds) and refused none.
func pings(rc *acctest.Receiver, n int) func(*terraform.State) error {
	return func(*terraform.State) error {
		if got := rc.Count("ping"); got != n || rc.Refused() != 0 {
			return fmt.Errorf("receiver: got %d verified pings and %d refused deliveries, want %d and none", got, rc.Refused(), n)
		}
		return nil
	}
}

// TestAccWebhook_writeOnly registers a receiver with the write-only secret and verify: the ping
// arrives signed with that secret, and the secret is nowhere in the state. Import, then a new
// secret_wo_version sends a new secret, with which the receiver verifies the next ping; a new
// secret_wo value alone changes nothing.
func TestAccWebhook_writeOnly(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, secretOne)
	withSecret := func(secret string, version int) string {
		return b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret_wo", secret), acctest.Attr("secret_wo_version", version), acctest.Attr("verify", true))
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: withSecret(secretOne, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "id", knownvalue.StringExact("webhook")),
				acctest.Check(res, "url", knownvalue.StringExact(rc.URL)),
				acctest.Check(res, "configured", knownvalue.Bool(true)),
				acctest.Check(res, "verify", knownvalue.Bool(true)),
				acctest.Check(res, "secret_wo_version", knownvalue.Int64Exact(1)),
				acctest.Check(res, "secret_wo", knownvalue.Null()),
				acctest.Check(res, "secret", knownvalue.Null()),
				acctest.Check(res, "events", knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.NotNull()})),
				acctest.ExpectAbsentFromState("the write-only secret", secretOne),
			},
			Check: func(s *terraform.State) error {
				if err := registered(t, b, rc.URL); err != nil {
					return err
				}
				return pings(rc, 1)(s)
			},
		},
		resource.TestStep{
			ResourceName:      res,
			ImportState:       true,
			ImportStateId:     "webhook",
			ImportStateVerify: true,
			// Neither the secret's version nor verify can be read back from the API.
			ImportStateVerifyIgnore: []string{"secret_wo_version", "verify"},
		},
		resource.TestStep{
			// A real receiver rotates like this: it accepts the new secret, then the webhook sends it.
			PreConfig: func() { rc.SetSecret(secretTwo) },
			Config:    withSecret(secretTwo, 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "secret_wo_version", knownvalue.Int64Exact(2)),
				acctest.Check(res, "secret_wo", knownvalue.Null()),
				acctest.ExpectAbsentFromState("the new write-only secret", secretTwo),
				acctest.ExpectAbsentFromState("the old write-only secret", secretOne),
			},
			Check: pings(rc, 2),
		},
		resource.TestStep{
			// Terraform cannot see a write-only value change: without a new version nothing is sent.
			Config: withSecret(secretThree, 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
			Check: pings(rc, 2),
		},
	))
}

// TestAccWebhook_secret: the secret form is kept in the state, marked sensitive. A ping the
// receiver refuses fails the apply quoting its status, and the next apply pings again once the
// receiver accepts it.
func TestAccWebhook_secret(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, secretOne)
	withSecret := func(secret string) string {
		return b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret", secret), acctest.Attr("verify", true))
	}
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config: withSecret(secretOne),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "secret", knownvalue.StringExact(secretOne)),
				statecheck.ExpectSensitiveValue(res, tfjsonpath.New("secret")),
				acctest.Check(res, "secret_wo", knownvalue.Null()),
				acctest.ExpectPresentInState("the stored secret", secretOne),
			},
			Check: pings(rc, 1),
		},
		resource.TestStep{
			// The receiver still verifies with the old secret: the ping is refused.
			Config:      withSecret(secretTwo),
			ExpectError: acctest.ErrorRegexp(`Webhook test ping not delivered.*HTTP 401 Unauthorized`),
		},
		resource.TestStep{
			PreConfig: func() { rc.SetSecret(secretTwo) },
			Config:    withSecret(secretTwo),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate), // verify is false in the state
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "secret", knownvalue.StringExact(secretTwo)),
				acctest.Check(res, "verify", knownvalue.Bool(true)),
			},
			Check: func(*terraform.State) error {
				if got := rc.Count("ping"); got != 2 || rc.Refused() != 1 {
					return fmt.Errorf("receiver: got %d verified pings and %d refused, want 2 and 1", got, rc.Refused())
				}
				return nil
			},
		},
		resource.TestStep{
			// From the stored secret to the write-only one.
			PreConfig: func() { rc.SetSecret(secretThree) },
			Config:    b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret_wo", secretThree), acctest.Attr("secret_wo_version", 1), acctest.Attr("verify", true)),
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.Check(res, "secret", knownvalue.Null()),
				acctest.ExpectAbsentFromState("the write-only secret", secretThree),
				acctest.ExpectAbsentFromState("the former stored secret", secretTwo),
			},
		},
	))
}

// TestAccWebhook_events: once registered, the events of the account reach the receiver signed,
// here the snapshot of a server (order.deployed, snapshot.created).
func TestAccWebhook_events(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, secretOne)
	config := b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret_wo", secretOne), acctest.Attr("secret_wo_version", 1)) + `
resource "reseller_instance" "web" {
  plan_id     = 101
  template_id = 1
  depends_on  = [reseller_webhook.test]
}

resource "reseller_snapshot" "web" {
  instance_id = reseller_instance.web.id
}
`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.AllOf(b.CheckNoWebhook(t), b.CheckNoSnapshots(t), b.CheckNoActiveInstances(t)),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				for _, name := range []string{"order.deployed", "snapshot.created"} {
					if err := rc.WaitFor(name, 1, acctest.EventWait); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	})
}

// TestAccWebhook_drift: a webhook removed behind Terraform's back is planned for creation and
// registered again.
func TestAccWebhook_drift(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, secretOne)
	config := b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret", secretOne))
	c := b.Client(t, "en")
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{Config: config},
		resource.TestStep{
			PreConfig: func() {
				if _, err := c.DeleteWebhook(context.Background()); err != nil {
					t.Fatalf("removing the webhook behind Terraform's back: %v", err)
				}
			},
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionCreate),
			}},
			Check: func(*terraform.State) error { return registered(t, b, rc.URL) },
		},
		resource.TestStep{
			// A URL changed behind Terraform's back is changed back in place.
			PreConfig: func() {
				if _, err := c.PutWebhook(context.Background(), client.WebhookRequest{URL: "https://elsewhere.example.com/h", Secret: secretTwo}); err != nil {
					t.Fatalf("changing the webhook behind Terraform's back: %v", err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			Check: func(*terraform.State) error { return registered(t, b, rc.URL) },
		},
	))
}

// TestAccWebhook_alreadyRegistered: a webhook registered outside Terraform is not replaced by a
// create; the error says to import it, and after the import the configured secret is sent.
func TestAccWebhook_alreadyRegistered(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	rc := acctest.StartReceiver(t, secretTwo)
	if _, err := b.Client(t, "en").PutWebhook(context.Background(), client.WebhookRequest{URL: "https://hooks.example.com/x", Secret: secretOne}); err != nil {
		t.Fatalf("registering a webhook outside Terraform: %v", err)
	}
	config := b.ResourceConfig("reseller_webhook", acctest.Attr("url", rc.URL), acctest.Attr("secret", secretTwo), acctest.Attr("verify", true))
	resource.ParallelTest(t, testCase(t, b,
		resource.TestStep{
			Config:      config,
			ExpectError: acctest.ErrorRegexp(`Webhook already registered.*"https://hooks.example.com/x".*import it.*"webhook"`),
		},
		resource.TestStep{
			Config:             config,
			ResourceName:       res,
			ImportState:        true,
			ImportStateId:      "webhook",
			ImportStatePersist: true,
		},
		resource.TestStep{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
			}},
			Check: func(s *terraform.State) error {
				if err := registered(t, b, rc.URL); err != nil {
					return err
				}
				return pings(rc, 1)(s)
			},
		},
	))
}

// TestAccWebhook_importInvalidID: an import id other than "webhook" is refused clearly.
func TestAccWebhook_importInvalidID(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	resource.ParallelTest(t, testCase(t, b, resource.TestStep{
		Config:        b.ResourceConfig("reseller_webhook", acctest.Attr("url", "https://hooks.example.com/x"), acctest.Attr("secret", secretOne)),
		ResourceName:  res,
		ImportState:   true,
		ImportStateId: "main",
		ExpectError:   acctest.ErrorRegexp(`Invalid import ID.*"main".*always "webhook"`),
	}))
}

// TestAccWebhook_invalidInput: the URL and the secrets are checked at plan time, naming the
// attribute; nothing is registered.
func TestAccWebhook_invalidInput(t *testing.T) {
	b := acctest.StartBackend(t, acctest.WithHTTPWebhooks())
	url := acctest.Attr("url", "https://hooks.example.com/x")
	tests := []struct {
		lines []string
		want  string
	}{
		{[]string{acctest.Attr("url", "ftp://hooks.example.com"), acctest.Attr("secret", secretOne)}, `Invalid webhook URL.*Attribute url.*"ftp"`},
		{[]string{acctest.Attr("url", "http://hooks.example.com/x"), acctest.Attr("secret", secretOne)}, `Invalid webhook URL.*only for a receiver on the same machine`},
		{[]string{acctest.Attr("url", "https://u:p@hooks.example.com/x"), acctest.Attr("secret", secretOne)}, `Invalid webhook URL.*credentials`},
		{[]string{url, acctest.Attr("secret", "short")}, `Attribute secret UTF-8 character count must be between 16 and 256, got: 5`},
		{[]string{url, acctest.Attr("secret", strings.Repeat("s", 257))}, `Attribute secret UTF-8 character count must be between 16 and 256, got: 257`},
		{[]string{url, acctest.Attr("secret_wo", "short"), acctest.Attr("secret_wo_version", 1)}, `Attribute secret_wo UTF-8 character count must be between 16 and 256, got: 5`},
		{[]string{url}, `secret.*secret_wo`},
		{[]string{url, acctest.Attr("secret", secretOne), acctest.Attr("secret_wo", secretTwo), acctest.Attr("secret_wo_version", 1)}, `secret.*secret_wo`},
		{[]string{url, acctest.Attr("secret_wo", secretTwo)}, `secret_wo_version.*must be specified`},
		{[]string{url, acctest.Attr("secret", secretOne), acctest.Attr("secret_wo_version", 1)}, `secret_wo.*must be specified`},
	}
	var s []resource.TestStep
	for _, tc := range tests {
		s = append(s, resource.TestStep{Config: b.ResourceConfig("reseller_webhook", tc.lines...), PlanOnly: true, ExpectError: acctest.ErrorRegexp(tc.want)})
	}
	resource.ParallelTest(t, testCase(t, b, s...))
}
