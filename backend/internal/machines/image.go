package machines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/agent"
)

// Busybox is the static busybox the default image is assembled from (Debian's busybox-static).
const Busybox = "/bin/busybox"

// imageVersion changes when the default image's layout does; with busybox's size and time it
// names the image, so an image assembled by another version is assembled again.
const imageVersion = "reseller-image-1"

// imageFiles are the default image's configuration files.
var imageFiles = map[string]string{
	"etc/passwd":        "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
	"etc/group":         "root:x:0:\ntty:x:5:\nnogroup:x:65534:\n",
	"etc/shadow":        "root:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n",
	"etc/shells":        "/bin/sh\n/bin/ash\n",
	"etc/profile":       "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nexport PS1='\\u@\\h:\\w\\$ '\n",
	"etc/resolv.conf":   "",
	"etc/nsswitch.conf": "hosts: files dns\n",
}

// imageDirs are the default image's directories (with their modes).
var imageDirs = map[string]os.FileMode{
	"bin": 0o755, "sbin": 0o755, "usr/bin": 0o755, "usr/sbin": 0o755, "usr/local/bin": 0o755,
	"etc/ssh": 0o755, "root": 0o700, "tmp": 0o1777, "var/tmp": 0o1777, "var/log": 0o755,
	"home": 0o755, "proc": 0o555, "sys": 0o555, "dev": 0o755, "run": 0o755, "opt": 0o755, "srv": 0o755,
}

// ensureImage returns the lower layer of every disk: Options.Image as given, or the default
// image under Dir/image, assembled once (again when its stamp differs) from Busybox: the
// binary, a symlink per applet at the path busybox names, and a minimal /etc.
func ensureImage(o Options) (string, error) {
	if o.Image != "" {
		return checkImage("--machines-image", o.Image)
	}
	stamp, err := imageStamp()
	if err != nil {
		return "", err
	}
	img := filepath.Join(o.Dir, "image")
	if old, err := os.ReadFile(filepath.Join(img, ".reseller-image")); err == nil && string(old) == stamp {
		return img, nil
	}
	tmp, err := os.MkdirTemp(o.Dir, "image-*")
	if err != nil {
		return "", fmt.Errorf("machines: assemble the image: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := assembleImage(tmp, stamp); err != nil {
		return "", fmt.Errorf("machines: assemble the image: %w", err)
	}
	if err := os.RemoveAll(img); err != nil {
		return "", fmt.Errorf("machines: replace the image: %w", err)
	}
	if err := os.Rename(tmp, img); err != nil {
		return "", fmt.Errorf("machines: replace the image: %w", err)
	}
	return img, nil
}

// checkImage returns dir, absolute, if it is a root filesystem a machine can boot: a directory
// with /bin/sh (SSH sessions and scripts run it). A symlink is read inside the machine, so only
// its presence is checked. what names the option in the error.
func checkImage(what, dir string) (string, error) {
	img, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("machines: %s: %w", what, err)
	}
	if fi, err := os.Stat(img); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("machines: %s %s is not a directory (a root filesystem)", what, img)
	}
	if _, err := os.Lstat(filepath.Join(img, "bin", "sh")); err != nil {
		return "", fmt.Errorf("machines: %s %s has no /bin/sh (sessions and scripts run it)", what, img)
	}
	return img, nil
}

// templateImages checks every image of Options.ImageFor and returns them absolute.
func templateImages(imageFor map[string]string) (map[string]string, error) {
	images := make(map[string]string, len(imageFor))
	var errs []error
	for template, dir := range imageFor {
		img, err := checkImage(fmt.Sprintf("--machines-image-for %q", template), dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		images[template] = img
	}
	return images, errors.Join(errs...)
}

// imageFor is the image a fresh disk of template is made on.
func (m *Manager) imageFor(template string) string {
	if img, ok := m.images[template]; ok {
		return img
	}
	return m.image
}

// lower is the image under r's disk: the one it was made on.
func (m *Manager) lower(r *record) string {
	if r.Image != "" {
		return r.Image
	}
	return m.image
}

func imageStamp() (string, error) {
	fi, err := os.Stat(Busybox)
	if err != nil {
		return "", fmt.Errorf("machines: %s: %w (apt-get install busybox-static)", Busybox, err)
	}
	return fmt.Sprintf("%s %d %d\n", imageVersion, fi.Size(), fi.ModTime().UnixNano()), nil
}

func assembleImage(root, stamp string) error {
	if err := os.Chmod(root, 0o755); err != nil {
		return err
	}
	for d, mode := range imageDirs {
		p := filepath.Join(root, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	if err := copyFile(Busybox, filepath.Join(root, "bin/busybox"), 0o755); err != nil {
		return err
	}
	applets, err := exec.CommandContext(context.Background(), Busybox, "--list-full").Output()
	if err != nil {
		return fmt.Errorf("%s --list-full: %w", Busybox, err)
	}
	for _, a := range strings.Fields(string(applets)) {
		p := filepath.Join(root, a)
		if a == "bin/busybox" || !strings.HasPrefix(p, root+"/") {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Symlink("/bin/busybox", p); err != nil && !os.IsExist(err) {
			return err
		}
	}
	for name, content := range imageFiles {
		mode := os.FileMode(0o644)
		if name == "etc/shadow" {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), mode); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(root, ".reseller-image"), []byte(stamp), 0o644)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeIdentity writes what a disk says about its machine into its upper layer (the machine
// is off): /etc/hostname and /etc/hosts, and on an image without an os-release of its own (the
// busybox image) /etc/os-release naming the template. An image that has one (a Debian image)
// keeps it, so Ansible, lsb_release and install scripts see the real distribution. The disk may
// be a snapshot's, holding what its machine's root left there, so they are written inside the
// layer (inRoot): /etc made a real directory, each file replaced rather than written through.
func writeIdentity(upper, lower string, r record) error {
	root, err := openInRoot(upper)
	if err != nil {
		return err
	}
	defer root.Close()
	files := []struct{ name, content string }{
		{"etc/hostname", r.Hostname + "\n"},
		{"etc/hosts", fmt.Sprintf("127.0.0.1\tlocalhost\n127.0.1.1\t%s\n", r.Hostname)},
	}
	if !hasOSRelease(lower) {
		files = append(files, struct{ name, content string }{"etc/os-release", osRelease(r.Template)})
	}
	for _, f := range files {
		if err := root.replaceFile(f.name, []byte(f.content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// hasOSRelease says whether the image at root names its distribution (os-release(5): /etc
// first, /usr/lib as the fallback; Debian's /etc/os-release is a relative symlink to the latter).
func hasOSRelease(root string) bool {
	for _, p := range []string{"etc/os-release", "usr/lib/os-release"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			return true
		}
	}
	return false
}

// osRelease is an os-release(5) file naming template.
func osRelease(template string) string {
	q := osReleaseQuote(template)
	var b bytes.Buffer
	fmt.Fprintf(&b, "NAME=%s\nPRETTY_NAME=%s\nID=reseller-sandbox\nVARIANT=%s\n", q, osReleaseQuote(template+" (reseller sandbox)"), q)
	fmt.Fprintf(&b, "HOME_URL=\"https://github.com/reseller/terraform-provider-reseller\"\n")
	return b.String()
}

// osReleaseQuote quotes s as os-release(5) asks: double quotes, with \, ", $ and ` escaped.
func osReleaseQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`", "\n", " ")
	return `"` + r.Replace(s) + `"`
}

// forgetHostKeys removes every SSH host key (/etc/ssh/ssh_host_*) from a disk copied from a
// snapshot, so the agent makes the new server a key of its own at its first boot: two servers
// sharing a key could pose as each other to every client that trusts it. A restore in place
// keeps its key: it is the same server. /etc/ssh is made a real directory first (inRoot), so
// the agent's key path is the one emptied, whatever the snapshot's root made of it.
func forgetHostKeys(upper string) error {
	root, err := openInRoot(upper)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := path.Dir(agent.HostKeyPath)
	fd, err := root.realDir(dir, 0o755)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	names, err := namesAt(fd)
	if err != nil {
		return fmt.Errorf("%s: list %s: %w", upper, dir, err)
	}
	for _, name := range names {
		if strings.HasPrefix(name, "ssh_host_") {
			if err := removeAt(fd, name); err != nil {
				return fmt.Errorf("%s: remove %s/%s: %w", upper, dir, name, err)
			}
		}
	}
	return nil
}
