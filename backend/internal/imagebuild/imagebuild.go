// Package imagebuild is `resellerd image build`: a root filesystem for machines (package
// machines, `--machines-image` and `--machines-image-for`) built from the Debian archive with
// mmdebstrap, so a machine runs a real distribution: python3 for Ansible, apt, the clients
// people point at servers, and the products of the apps an image is built for.
//
// mmdebstrap is the tool because it builds an unpacked root filesystem as root without a
// container runtime and takes the archive from the host's own apt sources; it is installed with
// apt-get where it is missing. A build goes into a temporary directory beside Out and is renamed
// into place only once it is whole, so a failed build leaves nothing at Out; a build whose stamp
// (what it was built from) matches Out's is not made again.
package imagebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// DefaultSuite is the suite built unless Options.Suite names another.
const DefaultSuite = "bookworm"

// StampFile, at an image's root, says what the image was built from (Options.Stamp).
const StampFile = ".reseller-image-build"

// BasePackages are in every image: python3 (not python3-minimal: Ansible's modules import
// shutil), what the usual clients and health checks run (ps, ip, ss, scp, an sftp server,
// certificates), /etc/services for Python's sockets, and busybox, which the apps' stand-ins
// serve with where an image lacks the product.
func BasePackages() []string {
	return []string{"python3", "ca-certificates", "procps", "iproute2", "openssh-sftp-server", "openssh-client",
		"netbase", "busybox"}
}

// AppPackages are the Debian packages app's real product needs (`--apps`); ok is false for an
// app without one. mmdebstrap installs no Recommends, so each list names what the product
// needs to work, as WordPress's default theme.
func AppPackages(app string) (pkgs []string, ok bool) {
	switch app {
	case "mysql":
		return []string{"mariadb-server", "mariadb-client"}, true
	case "wordpress": // on the mysql app's MariaDB, which it requires
		return []string{"wordpress", "wordpress-theme-twentytwentythree", "apache2", "libapache2-mod-php",
			"php-mysql", "mariadb-client", "mariadb-server"}, true
	}
	return nil, false
}

// knownApps are the apps AppPackages knows, for an error.
const knownApps = "mysql, wordpress"

// hostSourceFiles are where this host's apt sources may be, deb822 first: the archive an image
// comes from unless Mirror is given.
func hostSourceFiles() []string {
	return []string{"/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"}
}

// Options are one build's.
type Options struct {
	Out     string   // the image's directory
	Suite   string   // "" is DefaultSuite
	Include []string // packages beyond BasePackages
	Apps    []string // apps whose products the image carries (AppPackages)
	Mirror  string   // a mirror URL; "" is the host's apt sources (mmdebstrap's default if it has none)
}

// Builder builds images. Its zero value is not usable: use New.
type Builder struct {
	log      io.Writer // progress, mmdebstrap's included
	lookPath func(string) (string, error)
	run      func(ctx context.Context, stderr io.Writer, name string, args ...string) error
}

// New is a Builder reporting progress on log (the command's stderr).
func New(log io.Writer) *Builder {
	return &Builder{log: log, lookPath: exec.LookPath, run: runCommand}
}

func runCommand(ctx context.Context, stderr io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	gentle(cmd)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Packages is every package the image gets: BasePackages, the apps' and Include, sorted,
// without duplicates. An unknown app is an error naming it and the known ones.
func (o Options) Packages() ([]string, error) {
	pkgs := BasePackages()
	for _, app := range o.Apps {
		p, ok := AppPackages(app)
		if !ok {
			return nil, fmt.Errorf("image build: --apps: no packages known for app %q (known: %s)", app, knownApps)
		}
		pkgs = append(pkgs, p...)
	}
	for _, p := range o.Include {
		if p = strings.TrimSpace(p); p != "" {
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(pkgs)
	return slices.Compact(pkgs), nil
}

func (o Options) suite() string {
	if o.Suite == "" {
		return DefaultSuite
	}
	return o.Suite
}

// Stamp names what an image is built from (suite, mirror, packages): an image whose stamp
// matches is not built again, and tests key their cached image by it.
func (o Options) Stamp() (string, error) {
	pkgs, err := o.Packages()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{"reseller-image-build-1", o.suite(), o.Mirror, strings.Join(pkgs, ",")}, "\n")))
	return o.suite() + "-" + hex.EncodeToString(sum[:8]), nil
}

// Build makes the image at o.Out, or leaves it when its stamp says it is already this build.
func (b *Builder) Build(ctx context.Context, o Options) error {
	if o.Out == "" {
		return errors.New("image build: --out is required")
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return fmt.Errorf("image build: --out: %w", err)
	}
	stamp, err := o.Stamp()
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(filepath.Join(out, StampFile)); err == nil && strings.TrimSpace(string(old)) == stamp {
		b.logf("%s is already this build (%s); nothing to do", out, stamp)
		return nil
	}
	if err := b.ensureMmdebstrap(ctx); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	// Beside out, so the rename stays on one filesystem; hidden, so it is never taken for an image.
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".build-*")
	if err == nil {
		// Resolved, as mountinfo names the mounts a killed mmdebstrap leaves in it (removeBuild
		// detaches them before anything is removed: through a symlinked parent it would see none).
		tmp, err = filepath.EvalSymlinks(tmp)
	}
	if err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	defer func() {
		if err := removeBuild(tmp); err != nil {
			b.logf("%v", err)
		}
	}()
	if err := b.mmdebstrap(ctx, o, tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, StampFile), []byte(stamp+"\n"), 0o644); err != nil {
		return fmt.Errorf("image build: %w", err)
	}
	if err := replaceDir(tmp, out); err != nil {
		return fmt.Errorf("image build: put the image at %s: %w", out, err)
	}
	b.logf("image %s ready at %s", stamp, out)
	return nil
}

// mmdebstrap builds the root filesystem into dir (empty).
func (b *Builder) mmdebstrap(ctx context.Context, o Options, dir string) error {
	args, err := mmdebstrapArgs(o, dir)
	if err != nil {
		return err
	}
	b.logf("building %s into %s: mmdebstrap %s", o.suite(), dir, strings.Join(args, " "))
	if err := b.run(ctx, b.log, "mmdebstrap", args...); err != nil {
		return fmt.Errorf("image build: %w (the build is removed; nothing was put at %s)", err, o.Out)
	}
	return nil
}

// mmdebstrapArgs are mmdebstrap's arguments for o into dir: minbase, the packages, the
// hooks that make the image a machine's, and the archive (o.Mirror, else the host's sources
// where the suite is the host's).
func mmdebstrapArgs(o Options, dir string) ([]string, error) {
	pkgs, err := o.Packages()
	if err != nil {
		return nil, err
	}
	args := []string{"--variant=minbase", "--include=" + strings.Join(pkgs, ","),
		// As this host's apt may be told (snapshot.debian.org's Release files expire).
		"--aptopt=Acquire::Check-Valid-Until \"false\"",
		"--customize-hook=" + hostsHook,
		o.suite(), dir}
	if o.Mirror != "" {
		return append(args, o.Mirror), nil
	}
	for _, f := range hostSourceFiles() {
		if hasSuite(f, o.suite()) {
			return append(args, f), nil // mmdebstrap pastes a file given as the mirror into the image's sources
		}
	}
	return args, nil // mmdebstrap's default, deb.debian.org
}

// hostsHook gives the image a localhost line in /etc/hosts (a machine writes its own hosts at
// every disk it makes, but tools run in the image before that expect one).
const hostsHook = `printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$1/etc/hosts"`

// hasSuite says whether the apt sources file carries suite: a deb822 "Suites:" field, or a
// one-line "deb [options] URI SUITE COMPONENTS..." entry.
func hasSuite(file, suite string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Suites") {
			if slices.Contains(strings.Fields(value), suite) {
				return true
			}
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != "deb" {
			continue
		}
		fields = fields[1:]
		if strings.HasPrefix(fields[0], "[") { // options, up to the field that closes them
			for len(fields) > 0 && !strings.HasSuffix(fields[0], "]") {
				fields = fields[1:]
			}
			if len(fields) > 0 {
				fields = fields[1:]
			}
		}
		if len(fields) >= 2 && fields[1] == suite {
			return true
		}
	}
	return false
}

// ensureMmdebstrap installs mmdebstrap with apt-get where it is missing, saying so.
func (b *Builder) ensureMmdebstrap(ctx context.Context) error {
	if _, err := b.lookPath("mmdebstrap"); err == nil {
		return nil
	}
	b.logf("mmdebstrap is missing: installing it (apt-get install -y mmdebstrap)")
	if err := b.run(ctx, b.log, "apt-get", "install", "-y", "--no-install-recommends", "mmdebstrap"); err != nil {
		b.logf("apt-get install failed; updating the package lists and trying again")
		if err := b.run(ctx, b.log, "apt-get", "update"); err != nil {
			return fmt.Errorf("image build: install mmdebstrap: %w", err)
		}
		if err := b.run(ctx, b.log, "apt-get", "install", "-y", "--no-install-recommends", "mmdebstrap"); err != nil {
			return fmt.Errorf("image build: install mmdebstrap (apt-get install mmdebstrap): %w", err)
		}
	}
	if _, err := b.lookPath("mmdebstrap"); err != nil {
		return fmt.Errorf("image build: mmdebstrap still missing after apt-get install: %w", err)
	}
	return nil
}

// replaceDir puts the directory tmp at out: renamed in when out does not exist; else out is
// moved aside first and removed once tmp is in place.
func replaceDir(tmp, out string) error {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, out)
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return errors.Join(err, os.Rename(old, out))
	}
	return os.RemoveAll(old)
}

func (b *Builder) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "resellerd image build: "+format+"\n", args...)
}
