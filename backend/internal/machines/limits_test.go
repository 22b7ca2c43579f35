package machines

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLimitsFiles: the files each cgroup version holds a machine's limits in, with swap off
// where the kernel accounts it (v1's memsw at the memory limit, v2's swap.max 0), and no limit
// written as the version's own "none".
func TestLimitsFiles(t *testing.T) {
	cases := []struct {
		name    string
		v2      bool
		present []string // optional files the kernel offers
		l       Limits
		want    map[string]string
	}{
		{"v1", false, []string{"memory.memsw.limit_in_bytes"}, Limits{CPUs: 2, MemoryMB: 512}, map[string]string{
			"memory.limit_in_bytes": "536870912", "memory.memsw.limit_in_bytes": "536870912",
			"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "200000", "pids.max": "64"}},
		{"v1 unlimited", false, []string{"memory.memsw.limit_in_bytes"}, Limits{}, map[string]string{
			"memory.limit_in_bytes": "-1", "memory.memsw.limit_in_bytes": "-1", "cpu.cfs_quota_us": "-1", "pids.max": "64"}},
		{"v1 without swap accounting", false, nil, Limits{CPUs: 1, MemoryMB: 64}, map[string]string{
			"memory.limit_in_bytes": "67108864", "memory.memsw.limit_in_bytes": "", "cpu.cfs_quota_us": "100000"}},
		{"v2", true, []string{"memory.swap.max"}, Limits{CPUs: 2, MemoryMB: 512}, map[string]string{
			"memory.max": "536870912", "memory.swap.max": "0", "cpu.max": "200000 100000", "pids.max": "64"}},
		{"v2 unlimited", true, nil, Limits{}, map[string]string{
			"memory.max": "max", "memory.swap.max": "", "cpu.max": "max 100000", "pids.max": "64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.present {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("max"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := applyLimits(dir, c.v2, limitControllers, c.l, 64); err != nil {
				t.Fatal(err)
			}
			for file, want := range c.want {
				got, err := os.ReadFile(filepath.Join(dir, file))
				if want == "" {
					if err == nil {
						t.Errorf("%s written (%q), the kernel does not offer it", file, got)
					}
					continue
				}
				if string(got) != want {
					t.Errorf("%s = %q, want %q", file, got, want)
				}
			}
		})
	}
}
