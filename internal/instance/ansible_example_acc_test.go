package instance_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// debianTemplate is the catalogue's Debian 12 template, the one the Ansible guide gives an image.
const debianTemplate = 3

// TestAccInstance_ansibleExample applies the Ansible guide's example (examples/guides/ansible)
// against a backend whose servers are real machines and whose Debian 12 template has the real
// Debian image (machinestest.DebianImage, as `--machines-image-for 3=DIR`): Terraform orders the
// server, and the example's local-exec runs its playbook with the host's ansible-playbook over
// resellerd's SSH server, with the inventory and password from the resource. The file the
// playbook fetched back and the user it made are then found.
func TestAccInstance_ansibleExample(t *testing.T) {
	acctest.SameOnEveryCLI(t)
	t.Parallel()
	for _, tool := range []string{"ansible-playbook", "sshpass"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not on PATH (.ci/run installs ansible-core and sshpass)", tool)
			}
			t.Skipf("%s not on PATH (apt-get install ansible-core sshpass)", tool)
		}
	}
	image := machinestest.DebianImage(t)
	b := acctest.StartBackend(t, acctest.WithMachines(t), acctest.WithServerConfig(func(c *resellerd.Config) {
		c.Machines.ImageFor = map[int64]string{debianTemplate: image}
	}))
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "guides", "ansible"))
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	// The test's working directory is not the example's: the playbook is named where it is, and
	// the fetched files land in a directory of the test's.
	fetched := t.TempDir()
	cfg := withoutTerraformBlock(t, string(example))
	for old, repl := range map[string]string{"${path.module}/playbook.yml": filepath.Join(dir, "playbook.yml"), "${path.module}/fetched": fetched} {
		if !strings.Contains(cfg, old) {
			t.Fatalf("the example no longer names %s", old)
		}
		cfg = strings.ReplaceAll(cfg, old, repl)
	}
	resource.Test(t, steps(t, b, resource.TestStep{
		Config: b.ProviderConfig() + cfg,
		Check: func(s *terraform.State) error {
			rs, ok := s.RootModule().Resources["reseller_instance.web"]
			if !ok {
				return fmt.Errorf("reseller_instance.web not in the state")
			}
			a := rs.Primary.Attributes
			motd, err := os.ReadFile(filepath.Join(fetched, a["ipv4"], "etc", "motd"))
			if err != nil {
				return fmt.Errorf("the file the playbook fetched: %w", err)
			}
			if want := "Managed by Ansible on " + a["ipv4"] + "\nhost web-1\n"; string(motd) != want {
				return fmt.Errorf("the fetched /etc/motd holds %q, want %q", motd, want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), acctest.EventWait)
			defer cancel()
			out, err := machinestest.SSH(ctx, a["ipv4"], 22, a["username"], a["password"], ". /etc/os-release && echo $ID && id -un deploy")
			if err != nil {
				return fmt.Errorf("logging into %s: %w", a["ipv4"], err)
			}
			if out != "debian\ndeploy\n" {
				return fmt.Errorf("on the server: %q, want the Debian image with the playbook's user deploy", out)
			}
			return nil
		},
	}))
}
