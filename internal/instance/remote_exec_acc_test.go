package instance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccInstance_remoteExecOnARealMachine applies the guide's example
// (examples/guides/servers-you-can-log-into) against a backend whose servers are real machines
// (--machines sandbox): its file and remote-exec provisioners log in with the instance's own
// ipv4, port, username and password, and the files they wrote are then found on the machine
// over SSH, in the test's own session.
func TestAccInstance_remoteExecOnARealMachine(t *testing.T) {
	t.Parallel()
	b := acctest.StartBackend(t, acctest.WithMachines(t))
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "guides", "servers-you-can-log-into", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	// The example's terraform block names the registry source; the test's provider is served
	// under the name the CLI's reattach gives it, so the block is left out.
	cfg := withoutTerraformBlock(t, string(example))
	greeting := "hello from the acceptance test " + strconv.FormatInt(time.Now().UnixNano(), 36)
	tc := steps(t, b, resource.TestStep{
		Config:          b.ProviderConfig() + cfg,
		ConfigVariables: config.Variables{"greeting": config.StringVariable(greeting)},
		Check: func(s *terraform.State) error {
			rs, ok := s.RootModule().Resources["reseller_instance.box"]
			if !ok {
				return fmt.Errorf("reseller_instance.box not in the state")
			}
			a := rs.Primary.Attributes
			port, err := strconv.Atoi(a["port"])
			if err != nil || port != 22 {
				return fmt.Errorf("port = %q, want 22", a["port"])
			}
			ctx, cancel := context.WithTimeout(context.Background(), acctest.EventWait)
			defer cancel()
			out, err := machinestest.SSH(ctx, a["ipv4"], port, a["username"], a["password"], "cat /root/greeting /root/provisioned")
			if err != nil {
				return fmt.Errorf("logging into %s: %w", a["ipv4"], err)
			}
			if want := greeting + "\nbox-1\n"; out != want {
				return fmt.Errorf("the provisioners' files hold %q, want %q", out, want)
			}
			if _, err := machinestest.SSH(ctx, a["ipv4"], port, a["username"], a["password"]+"x", "true"); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
				return fmt.Errorf("a wrong password: got %v, want refused", err)
			}
			return nil
		},
	})
	resource.Test(t, tc)
}

// withoutTerraformBlock is hcl without its top-level terraform { ... } block.
func withoutTerraformBlock(t *testing.T, hcl string) string {
	t.Helper()
	start := strings.Index(hcl, "\nterraform {\n")
	if start < 0 {
		t.Fatal("the example has no terraform block")
	}
	end := strings.Index(hcl[start:], "\n}\n")
	if end < 0 {
		t.Fatal("the example's terraform block does not end")
	}
	return hcl[:start] + hcl[start+end+2:]
}
