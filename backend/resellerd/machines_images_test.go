package resellerd

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
)

// requireTool returns the path of one of names on PATH; without any, the test skips, or fails
// under CI, where .ci/run installs them.
func requireTool(t *testing.T, pkg string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("none of %v on PATH (apt-get install %s)", names, pkg)
	}
	t.Skipf("none of %v on PATH (apt-get install %s)", names, pkg)
	return ""
}

// TestMachineOnARealImage orders a Debian 12 server whose template has the Debian image built
// by `resellerd image build` (--machines-image-for 3=IMG): the machine is the real
// distribution (its os-release, a full python3, the package given by --include); the Ansible
// example's playbook runs green against it; the mysql and
// wordpress apps install the real MariaDB and WordPress, which answer the host and come back
// after power_off and power_on; a rebuild to another template lands on that template's image.
func TestMachineOnARealImage(t *testing.T) {
	t.Parallel() // waiting on the image (built beside the suite) holds nothing else up
	img := machinestest.DebianImage(t)
	mysqlClient := requireTool(t, "mariadb-client", "mariadb", "mysql")
	cfg := sandboxConfig(pg.TestDB(t), t.TempDir(), "198.19.42.0/24")
	cfg.Machines.ImageFor = map[int64]string{3: img}
	e := openEnv(t, cfg)
	a, err := e.srv.CreateAccount(context.Background(), NewAccount{BalanceMicros: 100_000_000, ServerLimit: 10, OrderLimit: 10})
	if err != nil {
		t.Fatal(err)
	}
	l := life{e: e, key: a.APIKey}

	start := time.Now()
	in := l.deploy(t, `{"server_id": 102, "template_id": 3, "term": "hourly", "hostname": "deb-1"}`)
	addr, password := login(t, in)
	mustSSH(t, addr, password, `. /etc/os-release && [ "$ID" = debian ] && [ "$VERSION_ID" = 12 ] && [ "$(hostname)" = deb-1 ] &&
		grep -q deb-1 /etc/hosts && python3 -c 'import shutil' && dpkg-query -W less && command -v ss scp`)
	t.Logf("figure: order to login on the Debian image: %s", time.Since(start).Round(10*time.Millisecond))
	runPlaybook(t, addr, password)

	body := `{"apps": ["wordpress"], "app_inputs": {"wordpress": {"SITE_TITLE": "Real <Blog>", "ADMIN_EMAIL": "ops@example.com"},
		"mysql": {"ROOT_PASSWORD": "db-Secret'9", "DATABASE": "shop"}}}`
	r := e.do(t, request{Method: http.MethodPost, Path: fmt.Sprintf("/instances/%d/apps", in.ID), Key: l.key, Body: body})
	if r.Status != http.StatusOK && r.Status != http.StatusAccepted {
		t.Fatalf("install: %d %s", r.Status, r.Raw)
	}
	for range 8 { // queued → preparing → running → installed, for mysql then wordpress
		l.runDue(t)
	}
	var apps api.InstanceAppsView
	e.do(t, request{Path: fmt.Sprintf("/instances/%d/apps", in.ID), Key: l.key}).Data(t, &apps)
	for _, inst := range apps.Installs {
		want := map[string]string{"mysql": "MariaDB, the real product", "wordpress": "WordPress on Apache and PHP, the real product"}[inst.AppID]
		if inst.Status != "installed" || !strings.Contains(inst.LogTail, want) {
			t.Fatalf("app %s: %s, log %q; want installed, the log saying %q", inst.AppID, inst.Status, inst.LogTail, want)
		}
	}
	realApps := func(when string) {
		t.Helper()
		wantMariaDB(t, mysqlClient, addr, "db-Secret'9", "shop")
		wantPage(t, addr, "<title>Real &lt;Blog&gt;")
		wantPage(t, addr, `<meta name="generator" content="WordPress`)
		wantStatus(t, "http://"+addr+"/wp-login.php", http.StatusOK)
		t.Logf("%s: MariaDB and WordPress answer", when)
	}
	realApps("installed")
	runTestinfra(t, addr, password)
	mustSSH(t, addr, password, `[ "$(stat -c %a /etc/reseller/apps/wordpress/ADMIN_PASSWORD)" = 600 ] && [ -s /etc/reseller/apps/wordpress/ADMIN_PASSWORD ]`)
	if out, err := sshRun(addr, password, `ps -eo rss= | awk '{s += $1} END {print int(s / 1024)}'`); err == nil {
		t.Logf("figure: the machine's processes' resident memory with MariaDB and WordPress running: %s MiB", strings.TrimSpace(out))
	}

	l.act(t, in.ID, `{"action": "power_off"}`)
	wantRefused(t, addr, password, true)
	l.act(t, in.ID, `{"action": "power_on"}`)
	bootedSSH(t, addr, password, "true")
	realApps("after power_off and power_on")

	l.act(t, in.ID, `{"action": "rebuild", "template_id": 1}`)
	_, password = login(t, l.instance(t, in.ID))
	bootedSSH(t, addr, password, `. /etc/os-release && [ "$ID" = reseller-sandbox ] && [ "$NAME" = "Ubuntu 24.04" ] && ! command -v python3`)
	l.act(t, in.ID, `{"action": "rebuild", "template_id": 3}`)
	_, password = login(t, l.instance(t, in.ID))
	bootedSSH(t, addr, password, `. /etc/os-release && [ "$ID" = debian ] && [ ! -e /etc/reseller/apps/mysql ]`)
}

// playbook is the Ansible example's playbook (examples/guides/ansible), run by the tests as the
// example's local-exec runs it.
const playbook = "../../examples/guides/ansible/playbook.yml"

// sshArgs are Ansible's default ssh arguments and the example's: no known_hosts.
const sshArgs = "-C -o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no"

// runPlaybook runs the example's playbook with the host's ansible-playbook (Debian's
// ansible-core) against root@addr with password over resellerd's SSH server, files moved by
// sftp only (no fallback to scp), and checks what it did: a user made, a file fetched back.
func runPlaybook(t *testing.T, addr, password string) {
	t.Helper()
	ansible := requireTool(t, "ansible-core", "ansible-playbook")
	requireTool(t, "sshpass", "sshpass")
	fetched := t.TempDir()
	cmd := exec.Command(ansible, "-i", addr+",", "-u", "root", "-e", "ansible_password={{ lookup('env', 'SSH_PASSWORD') }}",
		"-e", "fetch_dir="+fetched, playbook)
	// A test machine's host key is new every time, at an address other tests' machines had: no
	// known_hosts (ssh reads the user's from the password database, not $HOME).
	cmd.Env = append(os.Environ(), "SSH_PASSWORD="+password, "ANSIBLE_HOST_KEY_CHECKING=False", "ANSIBLE_SSH_ARGS="+sshArgs,
		"ANSIBLE_SSH_TRANSFER_METHOD=sftp", "ANSIBLE_NOCOLOR=1", "HOME="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "failed=0") {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	t.Logf("figure: the Ansible example's playbook ran green in %s", time.Since(start).Round(10*time.Millisecond))
	motd, err := os.ReadFile(fetched + "/" + addr + "/etc/motd")
	if err != nil || !strings.Contains(string(motd), "Managed by Ansible") || !strings.Contains(string(motd), "host deb-1") {
		t.Fatalf("fetched /etc/motd: %q (%v)", motd, err)
	}
	mustSSH(t, addr, password, "id deploy && [ -d /home/deploy ]")
}

// runTestinfra runs testdata/test_real_image.py with testinfra (Debian's python3-testinfra and
// python3-paramiko) against root@addr with password over resellerd's SSH server.
func runTestinfra(t *testing.T, addr, password string) {
	t.Helper()
	pytest := requireTool(t, "python3-testinfra python3-paramiko", "pytest-3", "py.test-3")
	hosts := "paramiko://root:" + url.QueryEscape(password) + "@" + addr
	cmd := exec.Command(pytest, "-q", "-p", "no:cacheprovider", "--hosts="+hosts, "testdata/test_real_image.py")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no keys of the host's to offer first
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "5 passed") {
		t.Fatalf("testinfra: %v\n%s", err, out)
	}
}

// wantMariaDB fails t unless the host's MariaDB client logs into addr as root with password
// (within afterBoot) and finds MariaDB and database db.
func wantMariaDB(t *testing.T, client, addr, password, db string) {
	t.Helper()
	for deadline := time.Now().Add(afterBoot); ; time.Sleep(50 * time.Millisecond) {
		cmd := exec.Command(client, "-h", addr, "-u", "root", "--connect-timeout=3", "-N", "-e", "SELECT VERSION(); SHOW DATABASES LIKE '"+db+"'")
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+password)
		out, err := cmd.CombinedOutput()
		if err == nil && strings.Contains(string(out), "MariaDB") && strings.Contains(string(out), db) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("MariaDB at %s with database %s: not within %s; the client's last answer: %v\n%s", addr, db, afterBoot, err, out)
		}
	}
}

// wantStatus fails t unless GET url answers code within afterBoot.
func wantStatus(t *testing.T, url string, code int) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	eventually(t, afterBoot, "GET "+url, func() bool {
		resp, err := c.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == code
	})
}
