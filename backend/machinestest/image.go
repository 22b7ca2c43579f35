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

// DebianImageName is the test image's directory in the cache. .ci/run builds it beforehand
// with the same options (`resellerd image build --apps mysql,wordpress --include less`); a
// build with other options is replaced at the test's first use.
const DebianImageName = "debian12-test"

// DebianImageOptions are the test image's: Debian 12 with the real products of both apps and
// one package by --include (less), which the tests look for.
func DebianImageOptions() imagebuild.Options {
	return imagebuild.Options{Apps: []string{"mysql", "wordpress"}, Include: []string{"less"}}
}

// DebianImage is the test image (DebianImageOptions), built by `resellerd image build`'s code
// into the cache the first time and reused after (a build whose stamp matches is not made
// again). A build needs root and the Debian archive: it skips the test where machines are not
// allowed (Require) and fails where the build fails.
func DebianImage(t testing.TB) string {
	t.Helper()
	Require(t)
	cache, err := imageCache()
	if err != nil {
		t.Fatal(err)
	}
	o := DebianImageOptions()
	o.Out = filepath.Join(cache, DebianImageName)
	unlock, err := lockFile(o.Out + ".lock") // tests of several packages may ask at once
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), imageBuildTimeout)
	defer cancel()
	start := time.Now()
	if err := imagebuild.New(testWriter{t}).Build(ctx, o); err != nil {
		t.Fatalf("build the test image into %s: %v", o.Out, err)
	}
	t.Logf("test image %s ready in %s", o.Out, time.Since(start).Round(time.Second))
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
