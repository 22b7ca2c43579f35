package machines

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// This host's kind (a hybrid v1 host, as CI): memory in a cgroup of its own, cpu and pids at
// their roots, cpu beside cpuacct on one machine and apart on another, an empty cgroup2.
const (
	hybridCgroup = `9:name=systemd:/
8:pids:/
4:memory:/process_api/ca901c
2:cpuacct:/
1:cpu:/
0::/
`
	hybridMountinfo = `30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	// A v2 host whose resellerd runs in a systemd service, in a container that mounts the
	// hierarchy from /ctr (so the mount's root is not "/").
	v2Cgroup    = "0::/ctr/system.slice/resellerd.service\n"
	v2Mountinfo = `25 1 0:22 / / rw - overlay overlay rw
26 25 0:23 /ctr /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
`
)

func TestOwnCgroupsAreWhereResellerdRuns(t *testing.T) {
	all := func(string) []string { return []string{"cpuset", "cpu", "io", "memory", "pids"} }
	none := func(string) []string { return nil }
	cases := []struct {
		name, cgroup, mountinfo string
		offered                 func(string) []string
		want                    []ownCgroup
		wantErr                 string
	}{
		{"v1 beside an empty v2", hybridCgroup, hybridMountinfo, none, []ownCgroup{
			{dir: "/sys/fs/cgroup/memory/process_api/ca901c", controllers: []string{"memory"}},
			{dir: "/sys/fs/cgroup/cpu", controllers: []string{"cpu"}},
			{dir: "/sys/fs/cgroup/pids", controllers: []string{"pids"}},
		}, ""},
		{"v1 with cpu and cpuacct together", "3:cpu,cpuacct:/a\n4:memory:/a\n5:pids:/a\n",
			"1 0 0:1 / /cg/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n2 0 0:2 / /cg/memory rw - cgroup cgroup rw,memory\n3 0 0:3 / /cg/pids rw - cgroup cgroup rw,pids\n",
			none, []ownCgroup{
				{dir: "/cg/memory/a", controllers: []string{"memory"}},
				{dir: "/cg/cpu,cpuacct/a", controllers: []string{"cpu"}},
				{dir: "/cg/pids/a", controllers: []string{"pids"}},
			}, ""},
		{"v2 in a container", v2Cgroup, v2Mountinfo, all, []ownCgroup{
			{dir: "/sys/fs/cgroup/system.slice/resellerd.service", v2: true, controllers: []string{"memory", "cpu", "pids"}},
		}, ""},
		{"v2 mounted twice, first from elsewhere", v2Cgroup,
			"1 0 0:23 /other /mnt/other rw - cgroup2 cgroup2 rw\n" + v2Mountinfo, all, []ownCgroup{
				{dir: "/sys/fs/cgroup/system.slice/resellerd.service", v2: true, controllers: []string{"memory", "cpu", "pids"}},
			}, ""},
		{"v2 without pids", v2Cgroup, v2Mountinfo, func(string) []string { return []string{"cpu", "memory"} }, nil,
			"offers pids to the cgroup resellerd runs in"},
		{"nothing mounted", hybridCgroup, "", none, nil, "offers memory, cpu, pids"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paths, err := parseProcCgroup(strings.NewReader(c.cgroup))
			if err != nil {
				t.Fatal(err)
			}
			mounts, err := parseCgroupMounts(strings.NewReader(c.mountinfo))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ownCgroups(paths, mounts, c.offered)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCgroupsV2AreMadeAndRemoved: on v2 (files in a temporary directory), a Manager's
// directory sits in resellerd's own cgroup with the controllers enabled there and in it, a
// machine is placed by its pid, and removal leaves nothing.
func TestCgroupsV2AreMadeAndRemoved(t *testing.T) {
	own := t.TempDir()
	dirs, err := makeCgroups([]ownCgroup{{dir: own, v2: true, controllers: limitControllers}}, "rsl-test")
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(own, "reseller-rsl-test")
	for _, dir := range []string{own, d} {
		if got, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); string(got) != "+memory +cpu +pids" {
			t.Errorf("%s/cgroup.subtree_control = %q, want +memory +cpu +pids", dir, got)
		}
	}
	if err := os.Mkdir(dirs[0].machineDir("vm-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := place(dirs, "vm-1", 4242); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(d, "vm-1", "cgroup.procs")); string(got) != "4242" {
		t.Errorf("cgroup.procs = %q, want 4242", got)
	}
	// cgroupfs has no regular files to remove; a temporary directory does.
	for _, dir := range []string{filepath.Join(d, "vm-1"), d} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if err := removeCgroups(dirs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", d, err)
	}
}
