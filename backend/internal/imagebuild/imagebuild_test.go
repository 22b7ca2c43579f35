package imagebuild

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPackagesAddAppsAndInclude(t *testing.T) {
	o := Options{Apps: []string{"wordpress", "mysql"}, Include: []string{"jq", " ", "python3"}}
	pkgs, err := o.Packages()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"python3", "openssh-sftp-server", "busybox", "mariadb-server", "wordpress",
		"wordpress-theme-twentytwentythree", "libapache2-mod-php", "jq"} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("packages %v lack %s", pkgs, want)
		}
	}
	if !slices.IsSorted(pkgs) || len(slices.Compact(slices.Clone(pkgs))) != len(pkgs) {
		t.Errorf("packages %v: want sorted, without duplicates", pkgs)
	}
	if _, err := (Options{Apps: []string{"gitlab"}}).Packages(); err == nil || !strings.Contains(err.Error(), `"gitlab"`) {
		t.Errorf("unknown app: got %v, want an error naming it", err)
	}
}

func TestStampFollowsWhatIsBuilt(t *testing.T) {
	a, _ := Options{Out: "/a"}.Stamp()
	b, _ := Options{Out: "/b", Suite: DefaultSuite}.Stamp()
	c, _ := Options{Include: []string{"jq"}}.Stamp()
	d, _ := Options{Mirror: "http://example.org/debian"}.Stamp()
	if a != b {
		t.Errorf("same build, other directory: stamps %q and %q differ", a, b)
	}
	if a == c || a == d {
		t.Errorf("other packages or mirror: stamp %q unchanged", a)
	}
}

func TestMmdebstrapArgs(t *testing.T) {
	args, err := mmdebstrapArgs(Options{Suite: "noble", Mirror: "http://archive.ubuntu.com/ubuntu", Include: []string{"jq"}}, "/tmp/x")
	if err != nil {
		t.Fatal(err)
	}
	n := len(args)
	if got := args[n-3:]; !slices.Equal(got, []string{"noble", "/tmp/x", "http://archive.ubuntu.com/ubuntu"}) {
		t.Errorf("suite, target, mirror: got %q", got)
	}
	if !slices.Contains(args, "--variant=minbase") || !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--include=") && strings.Contains(a, ",jq,")
	}) {
		t.Errorf("args %q: want minbase and jq included", args)
	}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "localhost") && strings.Contains(a, "etc/hosts") }) {
		t.Errorf("args %q: want a hook writing localhost into /etc/hosts", args)
	}
}

// fakeTools is a Builder's view of a host whose mmdebstrap appears once apt-get installed it.
type fakeTools struct {
	installed bool
	calls     []string
}

func (f *fakeTools) builder(log io.Writer) *Builder {
	return &Builder{log: log,
		lookPath: func(name string) (string, error) {
			if f.installed {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		},
		run: func(_ context.Context, _ io.Writer, name string, args ...string) error {
			f.calls = append(f.calls, name+" "+strings.Join(args, " "))
			if name == "apt-get" && slices.Contains(args, "mmdebstrap") {
				f.installed = true
			}
			if name == "mmdebstrap" {
				return errors.New("exit status 1")
			}
			return nil
		}}
}

func TestBuildInstallsMmdebstrapWhereMissingSayingSo(t *testing.T) {
	f := &fakeTools{}
	var log bytes.Buffer
	out := filepath.Join(t.TempDir(), "img")
	_ = f.builder(&log).Build(context.Background(), Options{Out: out})
	if len(f.calls) < 2 || !strings.HasPrefix(f.calls[0], "apt-get install -y") || !strings.HasPrefix(f.calls[1], "mmdebstrap ") {
		t.Errorf("calls %q: want apt-get install of mmdebstrap, then mmdebstrap", f.calls)
	}
	if !strings.Contains(log.String(), "mmdebstrap is missing") {
		t.Errorf("log %q does not say mmdebstrap was missing", log.String())
	}
}

func TestFailedBuildLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "img")
	err := (&fakeTools{installed: true}).builder(io.Discard).Build(context.Background(), Options{Out: out})
	if err == nil {
		t.Fatal("a failed mmdebstrap: got no error")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("after a failed build %s holds %v, want nothing", parent, entries)
	}
}

func TestBuildOfTheSameStampDoesNothing(t *testing.T) {
	out := t.TempDir()
	stamp, _ := Options{}.Stamp()
	if err := os.WriteFile(filepath.Join(out, StampFile), []byte(stamp+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeTools{installed: true}
	if err := f.builder(io.Discard).Build(context.Background(), Options{Out: out}); err != nil || len(f.calls) != 0 {
		t.Errorf("an image already built: got %v and calls %q, want nothing run", err, f.calls)
	}
}

func TestReplaceDirSwapsAnOldImage(t *testing.T) {
	parent := t.TempDir()
	tmp, out := filepath.Join(parent, ".new"), filepath.Join(parent, "img")
	for _, d := range []string{tmp, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "which"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := replaceDir(tmp, out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "which")); string(got) != tmp {
		t.Errorf("image at out is %q, want the new one", got)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("%s holds %v, want only the image", parent, entries)
	}
}

func TestHasSuite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"deb822":  "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n",
		"oneline": "# comment\ndeb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg arch=amd64] http://deb.debian.org/debian bookworm main\n",
		"plain":   "deb http://deb.debian.org/debian trixie main contrib\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		file, suite string
		want        bool
	}{
		{"deb822", "bookworm", true}, {"deb822", "bookworm-updates", true}, {"deb822", "trixie", false},
		{"oneline", "bookworm", true}, {"oneline", "main", false}, {"plain", "trixie", true}, {"plain", "bookworm", false},
		{"missing", "bookworm", false},
	} {
		if got := hasSuite(filepath.Join(dir, tt.file), tt.suite); got != tt.want {
			t.Errorf("hasSuite(%s, %s) = %v, want %v", tt.file, tt.suite, got, tt.want)
		}
	}
}
