package sshd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// withoutSCP leaves commands a PATH with no scp (nor anything else), so that a copy that
// works was served by sshd itself.
func withoutSCP(c *Config) { c.Env = []string{"PATH=/nonexistent"} }

// terraformSCP copies the way Terraform's SSH communicator does (internal/communicator/ssh):
// it starts the shell-quoted command, runs the records through send, closes stdin and waits.
func terraformSCP(t *testing.T, c *ssh.Client, command string, send func(w io.Writer, r *bufio.Reader) error) error {
	t.Helper()
	s := openSession(t, c)
	stdin, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	s.Stderr = &stderr
	if err := s.Start(command); err != nil {
		return err
	}
	r := bufio.NewReader(stdout)
	if err := send(stdin, r); err != nil && err != io.EOF {
		return err
	}
	_ = stdin.Close()
	if err := s.Wait(); err != nil {
		return fmt.Errorf("%w (stderr %q)", err, stderr.String())
	}
	return nil
}

// scpStatus reads one answer byte as Terraform's checkSCPStatus does.
func scpStatus(r *bufio.Reader) error {
	code, err := r.ReadByte()
	if err != nil {
		return err
	}
	if code != 0 {
		msg, _, _ := r.ReadLine()
		return errors.New(string(msg))
	}
	return nil
}

// scpFile sends one file as Terraform's scpUploadFile: "C0644 SIZE NAME", data, "\x00".
func scpFile(w io.Writer, r *bufio.Reader, name, content string) error {
	_, _ = fmt.Fprintln(w, "C0644", len(content), name)
	if err := scpStatus(r); err != nil {
		return err
	}
	_, _ = io.WriteString(w, content)
	_, _ = fmt.Fprint(w, "\x00")
	return scpStatus(r)
}

// scpDir sends a directory as Terraform's scpUploadDirProtocol: "D0755 0 NAME", the
// entries, "E" (whose answer Terraform does not read).
func scpDir(w io.Writer, r *bufio.Reader, name string, entries func() error) error {
	_, _ = fmt.Fprintln(w, "D0755 0", name)
	if err := scpStatus(r); err != nil {
		return err
	}
	if err := entries(); err != nil {
		return err
	}
	_, _ = fmt.Fprintln(w, "E")
	return nil
}

func readFile(t *testing.T, path string) (string, os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), fi.Mode()
}

func TestSCPTerraformFileUpload(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	if out, _, _ := run(t, c, "command -v scp || echo none", nil); out != "none\n" {
		t.Fatalf("the test's machine has an scp (%q): the test would not show sshd serves it", out)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho provisioned\n"
	err := terraformSCP(t, c, "'scp' '-vt' '"+dir+"'", func(w io.Writer, r *bufio.Reader) error {
		if err := scpStatus(r); err != nil { // the sink's first "ready"
			return err
		}
		return scpFile(w, r, "terraform_1234.sh", script)
	})
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	got, mode := readFile(t, filepath.Join(dir, "terraform_1234.sh"))
	if got != script || mode.Perm() != 0o644&^os.FileMode(processUmask()) {
		t.Fatalf("got %q mode %o, want %q mode %o", got, mode.Perm(), script, 0o644&^processUmask())
	}
	// Terraform then runs the script through the same server.
	stdout, _, status := run(t, c, "/bin/chmod 0777 "+dir+"/terraform_1234.sh && "+dir+"/terraform_1234.sh", nil)
	if stdout != "provisioned\n" || status != 0 {
		t.Fatalf("got %q, status %d", stdout, status)
	}
}

func TestSCPTerraformFileOverwritesAndTargetIsTheFile(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "existing.txt")
	if err := os.WriteFile(target, []byte("a much longer old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The target is not a directory: the record's name is ignored and the target written.
	err := terraformSCP(t, c, "scp -t "+target, func(w io.Writer, r *bufio.Reader) error {
		if err := scpStatus(r); err != nil {
			return err
		}
		return scpFile(w, r, "other-name", "new")
	})
	if err != nil {
		t.Fatal(err)
	}
	got, mode := readFile(t, target)
	if got != "new" || mode.Perm() != 0o600 {
		t.Fatalf("got %q mode %o, want \"new\" with its old mode 600 (no -p)", got, mode.Perm())
	}
}

func TestSCPTerraformDirectoryUpload(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	dst := t.TempDir()
	err := terraformSCP(t, c, "'scp' '-rvt' '"+dst+"'", func(w io.Writer, r *bufio.Reader) error {
		if err := scpStatus(r); err != nil {
			return err
		}
		return scpDir(w, r, "site", func() error {
			if err := scpFile(w, r, "index.html", "<h1>hi</h1>"); err != nil {
				return err
			}
			return scpDir(w, r, "assets", func() error {
				return scpFile(w, r, "app.js", "console.log(1)")
			})
		})
	})
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	for path, want := range map[string]string{"site/index.html": "<h1>hi</h1>", "site/assets/app.js": "console.log(1)"} {
		if got, _ := readFile(t, filepath.Join(dst, path)); got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
	fi, err := os.Stat(filepath.Join(dst, "site", "assets"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("site/assets: got %v, %v; want a directory of mode 755", fi, err)
	}
}

func TestSCPSinkRefusals(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, command, record, want string
	}{
		{"directory without -r", "scp -t " + dir, "D0755 0 sub", "without -r"},
		{"-d with a file target", "scp -d -t " + file, "", "Not a directory"},
		{"a name with a slash", "scp -t " + dir, "C0644 1 ../escape", "unexpected filename"},
		{"a bad mode", "scp -t " + dir, "C06x4 1 f", "bad mode"},
		{"not a record", "scp -t " + dir, "X", "expected control record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := terraformSCP(t, c, tc.command, func(w io.Writer, r *bufio.Reader) error {
				if err := scpStatus(r); err != nil {
					return err
				}
				_, _ = fmt.Fprintln(w, tc.record)
				return scpStatus(r)
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Fatal("a file was written outside the target")
	}
}

func TestSCPPreserveTimesAndModes(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	dst := t.TempDir()
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	err := terraformSCP(t, c, "scp -p -t "+dst, func(w io.Writer, r *bufio.Reader) error {
		if err := scpStatus(r); err != nil {
			return err
		}
		_, _ = fmt.Fprintf(w, "T%d 0 %d 0\n", mtime.Unix(), mtime.Unix())
		if err := scpStatus(r); err != nil {
			return err
		}
		_, _ = fmt.Fprint(w, "C0700 2 run.sh\nhi\x00")
		if err := scpStatus(r); err != nil {
			return err
		}
		return scpStatus(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dst, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(mtime) || fi.Mode().Perm() != 0o700 {
		t.Fatalf("got mtime %s mode %o, want %s mode 700", fi.ModTime(), fi.Mode().Perm(), mtime)
	}
}

// openSSH runs an OpenSSH client tool against the server through sshpass (the password in
// its environment, never on a command line).
func openSSH(t *testing.T, ts *testServer, tool string, args ...string) string {
	t.Helper()
	return openSSHWithInput(t, ts, "", tool, args...)
}

// needTool returns the path of the command bin, or skips t without it, except under CI (CI
// set), where the test fails: .ci/run installs what these tests drive (busybox-static, sshpass,
// openssh-client).
func needTool(t *testing.T, bin string) string {
	t.Helper()
	path, err := exec.LookPath(bin)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not installed: this test must run under CI", bin)
	}
	t.Skipf("%s not installed", bin)
	return ""
}

// openSSHWithInput is openSSH with stdin (sftp reads its commands there; its -b would turn
// password logins off).
func openSSHWithInput(t *testing.T, ts *testServer, stdin, tool string, args ...string) string {
	t.Helper()
	needTool(t, tool)
	needTool(t, "sshpass")
	_, port, _ := strings.Cut(ts.addr, ":")
	portFlag := "-P"
	if tool == "ssh" {
		portFlag = "-p"
	}
	full := append([]string{"-e", tool, portFlag, port,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"-o", "PreferredAuthentications=password", "-o", "PubkeyAuthentication=no"}, args...)
	cmd := exec.Command("sshpass", full...)
	cmd.Env = append(os.Environ(), "SSHPASS="+testPassword)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestOpenSSHLegacySCP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withoutSCP)
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "tree", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "tree", "sub", "f.txt"), []byte("deep"), 0o640); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	openSSH(t, ts, "scp", "-O", "-p", "-r", filepath.Join(src, "tree"), "root@127.0.0.1:"+dst)
	got, mode := readFile(t, filepath.Join(dst, "tree", "sub", "f.txt"))
	if got != "deep" || mode.Perm() != 0o640 {
		t.Fatalf("upload: got %q mode %o, want \"deep\" mode 640", got, mode.Perm())
	}
	old := time.Date(2021, 6, 7, 8, 9, 10, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dst, "tree", "sub", "f.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(t.TempDir(), "back.txt")
	openSSH(t, ts, "scp", "-O", "-p", "root@127.0.0.1:"+filepath.Join(dst, "tree", "sub", "f.txt"), back)
	if got, mode := readFile(t, back); got != "deep" || mode.Perm() != 0o640 {
		t.Fatalf("download: got %q mode %o, want \"deep\" mode 640", got, mode.Perm())
	}
	if fi, err := os.Stat(back); err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("download -p: got mtime %v (%v), want %s", fi.ModTime(), err, old)
	}
	fetched := t.TempDir()
	openSSH(t, ts, "scp", "-O", "-r", "root@127.0.0.1:"+filepath.Join(dst, "tree"), fetched)
	if got, _ := readFile(t, filepath.Join(fetched, "tree", "sub", "f.txt")); got != "deep" {
		t.Fatalf("recursive download: got %q, want \"deep\"", got)
	}
}

// TestSCPSourceSkipsNamesWithANewline: a file whose name holds a newline and what looks like a
// record is skipped with a warning, never sent as two records.
func TestSCPSourceSkipsNamesWithANewline(t *testing.T) {
	t.Parallel()
	c := startServer(t, withoutSCP).client(t)
	dir := t.TempDir()
	for name, data := range map[string]string{"a\nC0644 4 injected": "evil", "ok.txt": "ok"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, _ := run(t, c, "scp -r -f "+dir, strings.NewReader(strings.Repeat("\x00", 32)))
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, "C0644 4 injected") {
			t.Fatalf("a name's newline made a record of its own: %q", out)
		}
	}
	if !strings.Contains(out, "C0644 2 ok.txt") || !strings.Contains(out, "skipping, filename contains a newline") {
		t.Fatalf("want ok.txt sent and the other skipped with a warning: %q", out)
	}
}

func TestOpenSSHSFTP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withoutSCP)
	src := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(src, []byte("over sftp"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	// Modern scp speaks sftp unless given -O.
	openSSH(t, ts, "scp", src, "root@127.0.0.1:"+dst+"/up.txt")
	if got, _ := readFile(t, filepath.Join(dst, "up.txt")); got != "over sftp" {
		t.Fatalf("scp over sftp: got %q", got)
	}
	out := openSSHWithInput(t, ts, "mkdir "+dst+"/made\nls "+dst+"\n", "sftp", "root@127.0.0.1")
	if !isDir(filepath.Join(dst, "made")) || !strings.Contains(out, "up.txt") {
		t.Fatalf("sftp: no directory made or no listing:\n%s", out)
	}
}

func TestOpenSSHClientExec(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withoutSCP)
	out := openSSH(t, ts, "ssh", "root@127.0.0.1", "echo", "hello from", "$USER")
	if out != "hello from root\n" {
		t.Fatalf("got %q", out)
	}
}

func TestParseSCPCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		want    scpRequest
		ok      bool
	}{
		{"'scp' '-vt' '/tmp'", scpRequest{sink: true, paths: []string{"/tmp"}}, true},
		{"'scp' '-rvt' '/opt/app'", scpRequest{sink: true, recursive: true, paths: []string{"/opt/app"}}, true},
		{"scp -v -r -p -d -t -- /srv/my dir", scpRequest{sink: true, recursive: true, preserve: true, targetDir: true, paths: []string{"/srv/my", "dir"}}, true},
		{"scp -t '/srv/my dir'", scpRequest{sink: true, paths: []string{"/srv/my dir"}}, true},
		{"/usr/bin/scp -f a \"b c\"", scpRequest{source: true, paths: []string{"a", "b c"}}, true},
		{"scp -t ~/x", scpRequest{sink: true, paths: []string{"~/x"}}, true},
		{"scp a b", scpRequest{}, false},
		{"scp -t -f x", scpRequest{}, false},
		{"scp -t /tmp; rm -rf /", scpRequest{}, false},
		{"scp -t $HOME", scpRequest{}, false},
		{"scp -t /tmp/*", scpRequest{}, false},
		{"echo scp -t /tmp", scpRequest{}, false},
		{"scp -t 'unterminated", scpRequest{}, false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			got, ok := parseSCPCommand(tc.command)
			if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
				t.Fatalf("got %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`a  b	c`, []string{"a", "b", "c"}},
		{`'a b' "c d" e\ f`, []string{"a b", "c d", "e f"}},
		{`"a\"b" "a\xb" 'a\b'`, []string{`a"b`, `a\xb`, `a\b`}},
		{`'' x`, []string{"", "x"}},
		{`a#b`, []string{"a#b"}},
		{"a\n", []string{"a"}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got, ok := shellWords(tc.line)
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	for _, line := range []string{"a | b", "a && b", "a > f", "$X", "`x`", `"$X"`, "#c", "a*", "'open", `a\`} {
		if got, ok := shellWords(line); ok {
			t.Errorf("%q: got %q, want it left to the shell", line, got)
		}
	}
}

func TestResolvePath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"~": "/root", "~/a": "/root/a", "rel/b": "/root/rel/b", "/abs": "/abs"} {
		if got := resolvePath("/root", in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
