package machines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/mountinfo"
)

// The machines' cgroups. A machine's limits need three controllers: memory, cpu and pids. On a
// cgroup v1 host (or a hybrid one, as this project's CI) each sits in a hierarchy of its own
// (cpu often beside cpuacct); on a cgroup v2 host all three are in the one unified hierarchy. A
// controller is never in both. In every hierarchy that holds one of them, a Manager makes
// <the cgroup resellerd was started in>/reseller-<bridge>, and each machine a directory <ref>
// in it: nested where resellerd's own cgroup is, never at a hierarchy's root unless resellerd
// runs there, so whoever placed resellerd (systemd, a container runtime) still bounds it and its
// machines together.

// limitControllers are the controllers a machine's limits need.
var limitControllers = []string{"memory", "cpu", "pids"}

// cgroupDir is one Manager's directory in one hierarchy, and the controllers it limits there.
type cgroupDir struct {
	path        string
	v2          bool
	controllers []string // of limitControllers
}

// ownCgroup is the cgroup resellerd runs in on one hierarchy: its directory on this host and
// which of limitControllers it holds.
type ownCgroup struct {
	dir         string
	v2          bool
	controllers []string
}

// cgroupMount is a mounted cgroup hierarchy (a line of /proc/self/mountinfo).
type cgroupMount struct {
	point, root string   // where it is mounted, and which of its cgroups is mounted there
	v2          bool     // cgroup2
	options     []string // super options: a v1 hierarchy's controllers are among them
}

// findOwnCgroups finds, in /proc/self/cgroup and /proc/self/mountinfo, the directories of the
// cgroups resellerd runs in that hold limitControllers. An error names what is missing.
func findOwnCgroups() ([]ownCgroup, error) {
	self, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	defer self.Close()
	mountinfo, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer mountinfo.Close()
	mounts, err := parseCgroupMounts(mountinfo)
	if err != nil {
		return nil, err
	}
	paths, err := parseProcCgroup(self)
	if err != nil {
		return nil, err
	}
	return ownCgroups(paths, mounts, v2Controllers)
}

// parseProcCgroup reads /proc/<pid>/cgroup: for each hierarchy its controllers (v1; "" for
// v2's line) and the process's cgroup path there.
func parseProcCgroup(r io.Reader) (map[string]string, error) {
	paths := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		paths[f[1]] = f[2]
	}
	return paths, sc.Err()
}

// parseCgroupMounts reads the cgroup and cgroup2 mounts of /proc/<pid>/mountinfo.
func parseCgroupMounts(r io.Reader) ([]cgroupMount, error) {
	var mounts []cgroupMount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// ID parent major:minor root mount-point options [optional...] - fstype source super-options
		f := strings.Fields(sc.Text())
		sep := slices.Index(f, "-")
		if sep < 5 || sep+3 >= len(f) || (f[sep+1] != "cgroup" && f[sep+1] != "cgroup2") {
			continue
		}
		mounts = append(mounts, cgroupMount{point: mountinfo.Unescape(f[4]), root: mountinfo.Unescape(f[3]),
			v2: f[sep+1] == "cgroup2", options: strings.Split(f[sep+3], ",")})
	}
	return mounts, sc.Err()
}

// v2Controllers lists the controllers a cgroup v2 directory can give its children.
func v2Controllers(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

// ownCgroups matches the process's cgroup paths to the mounts: for each of limitControllers,
// the v1 hierarchy that holds it, else the v2 one when it offers it. Controllers that share a
// hierarchy share an ownCgroup. An error names each controller found nowhere.
func ownCgroups(paths map[string]string, mounts []cgroupMount, offered func(dir string) []string) ([]ownCgroup, error) {
	var own []ownCgroup
	var missing []string
	add := func(dir string, v2 bool, c string) {
		for i := range own {
			if own[i].dir == dir {
				own[i].controllers = append(own[i].controllers, c)
				return
			}
		}
		own = append(own, ownCgroup{dir: dir, v2: v2, controllers: []string{c}})
	}
	for _, c := range limitControllers {
		if dir, ok := v1Dir(paths, mounts, c); ok {
			add(dir, false, c)
		} else if dir, ok := v2Dir(paths, mounts); ok && slices.Contains(offered(dir), c) {
			add(dir, true, c)
		} else {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return own, fmt.Errorf("no cgroup hierarchy mounted here offers %s to the cgroup resellerd runs in", strings.Join(missing, ", "))
	}
	return own, nil
}

// v1Dir is the directory of the process's cgroup in the v1 hierarchy holding controller, on
// the first of its mounts that shows it.
func v1Dir(paths map[string]string, mounts []cgroupMount, controller string) (string, bool) {
	for _, m := range mounts {
		if m.v2 || !slices.Contains(m.options, controller) {
			continue
		}
		for list, path := range paths {
			if list != "" && slices.Contains(strings.Split(list, ","), controller) {
				if dir, ok := mountedDir(m, path); ok {
					return dir, true
				}
			}
		}
	}
	return "", false
}

// v2Dir is the directory of the process's cgroup in the v2 hierarchy.
func v2Dir(paths map[string]string, mounts []cgroupMount) (string, bool) {
	path, ok := paths[""]
	if !ok {
		return "", false
	}
	for _, m := range mounts {
		if !m.v2 {
			continue
		}
		if dir, ok := mountedDir(m, path); ok {
			return dir, true
		}
	}
	return "", false
}

// mountedDir is where cgroup path appears under mount m; false when m mounts a cgroup that
// does not contain it.
func mountedDir(m cgroupMount, path string) (string, bool) {
	rel, err := filepath.Rel(m.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.Join(m.point, rel), true
}

// managerCgroupName is a Manager's directory in each hierarchy, named after its bridge.
func managerCgroupName(bridge string) string { return "reseller-" + bridge }

// makeCgroups makes a Manager's directory in each of own's hierarchies, with, on v2, the
// controllers enabled for its children (and for itself in resellerd's own cgroup). On
// failure what it made is removed.
func makeCgroups(own []ownCgroup, bridge string) ([]cgroupDir, error) {
	var dirs []cgroupDir
	for _, o := range own {
		d := cgroupDir{path: filepath.Join(o.dir, managerCgroupName(bridge)), v2: o.v2, controllers: o.controllers}
		err := d.make(o.dir)
		if err != nil {
			removeCgroups(dirs)
			return nil, err
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// make creates d under parent. On v2 the controllers must be enabled in parent's and d's
// subtree_control; the kernel refuses that in a non-root cgroup that holds processes itself
// (resellerd's own, when it shares it), which the error then says.
func (d cgroupDir) make(parent string) error {
	if d.v2 {
		if err := enableControllers(parent, d.controllers); err != nil {
			return fmt.Errorf("enable %s for the cgroups under the one resellerd runs in (%s): %w (on cgroup v2 resellerd needs a cgroup of its own, e.g. systemd's Delegate=yes with resellerd in a leaf)",
				strings.Join(d.controllers, ", "), parent, err)
		}
	}
	if err := os.Mkdir(d.path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cgroup %s: %w", d.path, err)
	}
	if d.v2 {
		return enableControllers(d.path, d.controllers)
	}
	return nil
}

// enableControllers writes +c for each controller into dir's cgroup.subtree_control.
func enableControllers(dir string, controllers []string) error {
	var b strings.Builder
	for i, c := range controllers {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("+" + c)
	}
	return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(b.String()), 0o644)
}

// machineDir is ref's cgroup in d.
func (d cgroupDir) machineDir(ref string) string { return filepath.Join(d.path, ref) }

// place moves process pid, and so everything it starts afterwards, into ref's cgroup in every
// hierarchy.
func place(dirs []cgroupDir, ref string, pid int) error {
	for _, d := range dirs {
		procs := filepath.Join(d.machineDir(ref), "cgroup.procs")
		if err := os.WriteFile(procs, []byte(fmt.Sprint(pid)), 0o644); err != nil {
			return fmt.Errorf("place PID %d in %s: %w", pid, procs, err)
		}
	}
	return nil
}

// removeMachineCgroups removes ref's cgroup from every hierarchy (each must be empty of
// processes: its machine stopped).
func removeMachineCgroups(dirs []cgroupDir, ref string) error {
	var errs []error
	for _, d := range dirs {
		if err := os.Remove(d.machineDir(ref)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %w", err))
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes a Manager's directories and its machines' (rmdir, each empty of
// processes once its machine is stopped).
func removeCgroups(dirs []cgroupDir) error {
	var errs []error
	for _, d := range dirs {
		entries, _ := os.ReadDir(d.path)
		for _, e := range entries {
			if e.IsDir() {
				if err := os.Remove(filepath.Join(d.path, e.Name())); err != nil {
					errs = append(errs, fmt.Errorf("remove cgroup %w", err))
				}
			}
		}
		if err := os.Remove(d.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %w", err))
		}
	}
	return errors.Join(errs...)
}

// removeStaleCgroups removes the directories a Manager on bridge left (it crashed; its
// machines died with it), in the hierarchies of the cgroup this process runs in.
func removeStaleCgroups(bridge string) {
	own, _ := findOwnCgroups()
	dirs := make([]cgroupDir, 0, len(own))
	for _, o := range own {
		dirs = append(dirs, cgroupDir{path: filepath.Join(o.dir, managerCgroupName(bridge))})
	}
	_ = removeCgroups(dirs)
}
