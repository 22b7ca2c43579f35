package instance_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/reseller/terraform-provider-reseller/internal/acctest"
)

// TestAccConsole_openOnARealMachine applies the ephemeral resource's example of opening a
// console (examples/ephemeral-resources/reseller_console/open.tf) against a backend whose
// servers are real machines: the file its provisioner writes names the console's URL and
// password, and logging in there with them gives a shell on the server, which answers
// `hostname` with the server's hostname.
func TestAccConsole_openOnARealMachine(t *testing.T) {
	t.Parallel()
	b := acctest.StartBackend(t, acctest.WithMachines(t))
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "ephemeral-resources", "reseller_console", "open.tf"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "console.txt")
	cfg := strings.ReplaceAll(string(example), "reseller_instance.web", "reseller_instance.test")
	cfg = strings.ReplaceAll(cfg, "> console.txt", "> "+file)
	config := b.ResourceConfig("reseller_instance", acctest.Attr("plan_id", planSmall), acctest.Attr("template_id", tmplUbuntu),
		acctest.Attr("hostname", "console-box")) + cfg
	tc := steps(t, b, resource.TestStep{
		Config: config,
		Check: func(*terraform.State) error {
			return loginAndRunHostname(t, b, file, "console-box")
		},
	})
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}
	resource.Test(t, tc)
}

// loginAndRunHostname reads the console's URL and password from file, logs in on its
// WebSocket from its page's origin, types hostname and waits for want in what comes back.
func loginAndRunHostname(t *testing.T, b *acctest.Backend, file, want string) error {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`(?m)^open (\S+)\nconsole password: (\S+)$`).FindStringSubmatch(string(data))
	origin := strings.TrimSuffix(b.URL, "/api/v1")
	if m == nil || !strings.HasPrefix(m[1], origin+"/console/") {
		t.Fatalf("%s holds %q, want the console's URL under %s and its password", file, data, origin)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, mode %v; want it readable by its owner only", file, err, info.Mode())
	}
	ctx, cancel := context.WithTimeout(context.Background(), acctest.EventWait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(m[1], "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: map[string][]string{"Origin": {origin}}})
	if err != nil {
		return err
	}
	defer func() { _ = conn.CloseNow() }()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"password": "`+m[2]+`"}`)); err != nil {
		return err
	}
	if _, ready, err := conn.Read(ctx); err != nil || !strings.Contains(string(ready), "ready") {
		t.Fatalf("login: %q %v", ready, err)
	}
	if err := conn.Write(ctx, websocket.MessageBinary, []byte("hostname\r")); err != nil {
		return err
	}
	var screen strings.Builder
	for !regexp.MustCompile(`(?m)^` + want + `\r?$`).MatchString(screen.String()) {
		_, out, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("the console showed %q, then %v; want a line %q", screen.String(), err, want)
		}
		screen.Write(out)
	}
	return nil
}
