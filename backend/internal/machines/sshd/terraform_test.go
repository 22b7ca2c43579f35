package sshd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// terraformConfig provisions over SSH with Terraform's own communicator: a `file` with
// content, a `file` with a directory, and a `remote-exec` (a script copied by scp, then run
// with a PTY). terraform_data needs no provider download.
const terraformConfig = `
variable "password" {
  type      = string
  sensitive = true
}

resource "terraform_data" "machine" {
  connection {
    type        = "ssh"
    host        = "127.0.0.1"
    port        = %[1]s
    user        = "root"
    password    = var.password
    script_path = "%[2]s/terraform_%%RAND%%.sh"
    timeout     = "1m"
  }

  provisioner "file" {
    content     = "hello from terraform"
    destination = "%[2]s/hello.txt"
  }

  provisioner "file" {
    source      = "%[3]s"
    destination = "%[2]s"
  }

  provisioner "remote-exec" {
    inline = [
      "cat %[2]s/hello.txt > %[2]s/ran.txt",
      "echo \" $TERM\" >> %[2]s/ran.txt",
    ]
  }
}
`

func TestTerraformProvisioners(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs terraform")
	}
	tf := needTool(t, "terraform")
	// The commands find chmod (Terraform runs it on its script) and cat, and no scp.
	bin := t.TempDir()
	for _, tool := range []string{"chmod", "cat"} {
		path := needTool(t, tool)
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	ts := startServer(t, func(c *Config) { c.Env = []string{"PATH=" + bin} })
	_, port, _ := strings.Cut(ts.addr, ":")
	machine := t.TempDir()
	src := filepath.Join(t.TempDir(), "site")
	if err := os.MkdirAll(filepath.Join(src, "css"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "css", "main.css"), []byte("body{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(fmt.Sprintf(terraformConfig, port, machine, src)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"init", "-input=false"}, {"apply", "-auto-approve", "-input=false"}} {
		cmd := exec.CommandContext(ctx, tf, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_VAR_password="+testPassword)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("terraform %s: %v\n%s", args[0], err, out)
		}
	}
	for path, want := range map[string]string{
		"hello.txt":         "hello from terraform",
		"site/css/main.css": "body{}",
		"ran.txt":           "hello from terraform xterm\n",
	} {
		if got, _ := readFile(t, filepath.Join(machine, path)); got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
}
