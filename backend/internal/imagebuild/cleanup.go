package imagebuild

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reseller/terraform-provider-reseller/backend/internal/mountinfo"
)

// A build killed half-way (its context ended: SIGKILL after SIGTERM's grace) may leave
// mmdebstrap's mounts in the image being built: the host's /proc, /sys and /dev inside it.
// Removing the directory then would descend into them and delete the host's device nodes, so
// what is mounted under it is detached first, and a directory something stays mounted in is
// left, named, rather than removed.

// stopGrace is how long mmdebstrap has to clean up (its mounts) after SIGTERM.
const stopGrace = 30 * time.Second

// gentle makes a cancelled command get SIGTERM first, so mmdebstrap unmounts what it mounted.
func gentle(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopGrace
}

// removeBuild removes a build directory once nothing is mounted under it.
func removeBuild(dir string) error {
	for _, m := range mountsUnder(dir) {
		_ = unix.Unmount(m, unix.MNT_DETACH)
	}
	if left := mountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("image build: %s still has mounts (%s): left in place, not removed", dir, strings.Join(left, ", "))
	}
	return os.RemoveAll(dir)
}

// mountsUnder lists the mount points at or under dir, deepest first.
func mountsUnder(dir string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var list []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		p := mountinfo.Unescape(fields[4])
		if p == dir || strings.HasPrefix(p, dir+"/") {
			list = append(list, p)
		}
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	return list
}
