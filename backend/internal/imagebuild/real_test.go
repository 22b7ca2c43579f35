package imagebuild_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/imagebuild"
	"github.com/reseller/terraform-provider-reseller/backend/machinestest"
)

// TestRealBuildWithAFailedMirrorLeavesNothing: mmdebstrap against a mirror that does not
// answer fails, and nothing is left at --out nor beside it.
func TestRealBuildWithAFailedMirrorLeavesNothing(t *testing.T) {
	machinestest.Require(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "img")
	err := imagebuild.New(io.Discard).Build(context.Background(), imagebuild.Options{Out: out, Mirror: "http://127.0.0.1:9/debian"})
	if err == nil {
		t.Fatal("a build from a mirror that does not answer: got no error")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("after the failed build %s holds %v, want nothing", parent, entries)
	}
}

// TestRealBuildLandsThePackages: the test image (machinestest.DebianImage, built by Build)
// has every package its options name installed (the base, --apps' and --include's), a
// localhost line in /etc/hosts, Debian's os-release and its stamp.
func TestRealBuildLandsThePackages(t *testing.T) {
	img := machinestest.DebianImage(t)
	o := machinestest.DebianImageOptions()
	pkgs, err := o.Packages()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--admindir=" + filepath.Join(img, "var/lib/dpkg"), "-W", "-f=${Package} ${db:Status-Status}\n"}, pkgs...)
	out, err := exec.Command("dpkg-query", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-query in the image: %v\n%s", err, out)
	}
	for _, p := range pkgs {
		if !strings.Contains(string(out), p+" installed\n") {
			t.Errorf("package %s is not installed in the image:\n%s", p, out)
		}
	}
	for file, want := range map[string]string{"etc/hosts": "127.0.0.1\tlocalhost", "usr/lib/os-release": "ID=debian", imagebuild.StampFile: "bookworm-"} {
		if data, err := os.ReadFile(filepath.Join(img, file)); err != nil || !strings.Contains(string(data), want) {
			t.Errorf("the image's %s: %q (%v), want %q in it", file, data, err, want)
		}
	}
}
