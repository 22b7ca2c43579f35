package machines

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Check says what this host lacks for machines, each with how to get it; nil when nothing.
// resellerd exits 2 with it at start under --machines sandbox.
//
// Machines need root (not a user namespace alone: the bridge, the veths and the host-side
// filters are the host's), the `ip` command (iproute2), `iptables` and `iptables-restore`, `cp`,
// overlayfs, for the default image (Options.Image "") a static busybox at /bin/busybox, and
// images (Image, ImageFor) that are root filesystems.
func Check(o Options) error {
	return checkHost(o, thisHost())
}

// hostFacts are what Check looks at, gathered apart so tests can describe another host.
type hostFacts struct {
	euid     int
	lookPath func(string) (string, error)
	busybox  bool // an executable file at Busybox
	overlay  bool
}

func thisHost() hostFacts {
	fi, err := os.Stat(Busybox)
	return hostFacts{
		euid:     os.Geteuid(),
		lookPath: exec.LookPath,
		busybox:  err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0,
		overlay:  hasOverlay(),
	}
}

func checkHost(o Options, h hostFacts) error {
	var errs []error
	if h.euid != 0 {
		errs = append(errs, errors.New("machines: resellerd is not running as root; machines need root for their namespaces, bridge and host-side filters (run it as root, e.g. with sudo)"))
	}
	tools := []struct{ name, pkg string }{
		{"ip", "iproute2"}, {"iptables", "iptables"}, {"iptables-restore", "iptables"}, {"cp", "coreutils"},
	}
	for _, t := range tools {
		if _, err := h.lookPath(t.name); err != nil {
			errs = append(errs, fmt.Errorf("machines: no `%s` on PATH (apt-get install %s)", t.name, t.pkg))
		}
	}
	if o.Image == "" && !h.busybox {
		errs = append(errs, fmt.Errorf("machines: no busybox at %s for the default image (apt-get install busybox-static, or give --machines-image)", Busybox))
	}
	if o.Image != "" {
		if _, err := checkImage("--machines-image", o.Image); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := templateImages(o.ImageFor); err != nil {
		errs = append(errs, err)
	}
	if !h.overlay {
		errs = append(errs, errors.New("machines: the kernel has no overlayfs (modprobe overlay, or a kernel built with CONFIG_OVERLAY_FS)"))
	}
	return errors.Join(errs...)
}

// hasOverlay says whether the kernel knows overlayfs (or can load it on first mount).
func hasOverlay() bool {
	data, err := os.ReadFile("/proc/filesystems")
	if err == nil && strings.Contains(string(data), "\toverlay\n") {
		return true
	}
	_, err = os.Stat("/sys/module/overlay")
	return err == nil
}
