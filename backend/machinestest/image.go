package machinestest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/imagebuild"
)

// EnvImageCache names the directory real images are built into once and reused from
// (default: $HOME/.cache/reseller-images); .ci/run keeps it between runs where it can.
const EnvImageCache = "RESELLER_IMAGE_CACHE"

// imageBuildTimeout bounds a test image's build: mmdebstrap with MariaDB, Apache, PHP and
// WordPress on a busy shared host.
const imageBuildTimeout = 25 * time.Minute

// DebianImageOptions are the test image's: Debian 12 with the real products of both apps and
// one package by --include (less), which the tests look for.
func DebianImageOptions() imagebuild.Options {
	return imagebuild.Options{Apps: []string{"mysql", "wordpress"}, Include: []string{"less"}}
}

// DebianImage is the test image (DebianImageOptions), built by `resellerd image build`'s code
// into the cache the first time and reused after (its directory is named by the build's
// stamp, so a changed package list builds anew). A build needs root and the Debian archive:
// it skips the test where machines are not allowed (Require) and fails where the build fails.
func DebianImage(t testing.TB) string {
	t.Helper()
	Require(t)
	o := DebianImageOptions()
	stamp, err := o.Stamp()
	if err != nil {
		t.Fatal(err)
	}
	cache, err := imageCache()
	if err != nil {
		t.Fatal(err)
	}
	o.Out = filepath.Join(cache, stamp)
	unlock, err := lockFile(o.Out + ".lock") // tests of several packages may ask at once
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(o.Out, imagebuild.StampFile)); err == nil {
		return o.Out
	}
	ctx, cancel := context.WithTimeout(context.Background(), imageBuildTimeout)
	defer cancel()
	start := time.Now()
	t.Logf("building the test image %s (once; reused from %s after)", stamp, cache)
	if err := imagebuild.New(testWriter{t}).Build(ctx, o); err != nil {
		t.Fatalf("build the test image: %v", err)
	}
	t.Logf("test image built in %s", time.Since(start).Round(time.Second))
	return o.Out
}

func imageCache() (string, error) {
	if dir := os.Getenv(EnvImageCache); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("image cache: set %s: %w", EnvImageCache, err)
	}
	return filepath.Join(home, ".cache", "reseller-images"), nil
}

// lockFile flocks path (created), until the returned function is called.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// testWriter writes a build's progress to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}
