package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// deleteAll sends DELETE /instances/{id} for every server at once (10 per account, within the
// 30 a minute of that route) and returns how long the answers took, first sent to last answered.
func deleteAll(ctx context.Context, s *serve, logins []login) (time.Duration, error) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, len(logins))
	for i := range logins {
		l := &logins[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, b, err := s.call(ctx, l.key, "DELETE", "/instances/"+strconv.FormatInt(l.instanceID, 10))
			var answer struct {
				Data struct {
					Status string `json:"status"`
					Active bool   `json:"active"`
				} `json:"data"`
			}
			if err == nil && status == 200 {
				err = json.Unmarshal(b, &answer)
			}
			if err != nil || status != 200 || answer.Data.Active {
				errs[i] = fmt.Errorf("DELETE /instances/%d (%s): %d %s: %v", l.instanceID, l.hostname, status, b, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// leftovers is what of serve's machines is still on the host.
type leftovers struct {
	waited    time.Duration // how long the check waited for the host to be clean
	processes []string      // in a machine's PID namespace, or running serve's binary
	links     []string      // veths on serve's bridge, and the bridge itself once serve stopped
	mounts    []string      // under --machines-dir, in the host's mount table
	dirs      []string      // machine directories under --machines-dir/machines
	rules     []string      // iptables rules naming the bridge, once serve stopped
}

func (l leftovers) none() bool {
	return len(l.processes)+len(l.links)+len(l.mounts)+len(l.dirs)+len(l.rules) == 0
}

func (l leftovers) String() string {
	if l.none() {
		return "nothing"
	}
	var parts []string
	for _, kind := range []struct {
		name  string
		items []string
	}{{"processes", l.processes}, {"links", l.links}, {"mounts", l.mounts}, {"dirs", l.dirs}, {"iptables rules", l.rules}} {
		if len(kind.items) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(kind.items), kind.name, first(kind.items, 3)))
		}
	}
	return strings.Join(parts, "; ")
}

func first(items []string, n int) string {
	if len(items) > n {
		return strings.Join(items[:n], ", ") + ", ..."
	}
	return strings.Join(items, ", ")
}

// waitClean looks every 200 ms, up to limit, for anything of serve's machines left on the
// host (stopped: serve has exited, so its bridge and filter rules must be gone too), and
// returns the first clean look or the last one.
func waitClean(ctx context.Context, s *serve, known map[string]bool, limit time.Duration, stopped bool) (leftovers, error) {
	start := time.Now()
	for {
		l, err := s.leftovers(ctx, known, stopped)
		if err != nil {
			return l, err
		}
		l.waited = time.Since(start)
		if l.none() || l.waited >= limit || ctx.Err() != nil {
			return l, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leftovers looks once.
func (s *serve) leftovers(ctx context.Context, known map[string]bool, stopped bool) (leftovers, error) {
	var l leftovers
	var err error
	if l.processes, err = s.leftProcesses(known); err != nil {
		return l, err
	}
	if l.links, err = s.leftLinks(ctx, stopped); err != nil {
		return l, err
	}
	if l.mounts, err = s.leftMounts(); err != nil {
		return l, err
	}
	if l.dirs, err = s.leftDirs(); err != nil {
		return l, err
	}
	if stopped {
		l.rules, err = s.leftRules(ctx)
	}
	return l, err
}

// leftProcesses are the processes of serve's machines: in a PID namespace other than the
// host's and descending from serve or in a namespace a machine had, or running serve's binary
// (a machine's agent is that binary) other than serve itself.
func (s *serve) leftProcesses(known map[string]bool) ([]string, error) {
	hostNS, err := hostPidNS()
	if err != nil {
		return nil, err
	}
	all, err := processes()
	if err != nil {
		return nil, err
	}
	binary := absPath(s.binary)
	found := map[int]proc{}
	for _, procs := range machineProcs(all, s.pid(), hostNS, known) {
		for _, p := range procs {
			found[p.pid] = p
		}
	}
	for _, p := range all {
		if p.exe == binary && p.pid != s.pid() {
			found[p.pid] = p
		}
	}
	var out []string
	for _, p := range found {
		out = append(out, fmt.Sprintf("pid %d %s %s", p.pid, filepath.Base(p.exe), p.pidNS))
	}
	return out, nil
}

// findBridge is the link holding the host's address of the range (its first), which the
// machines' veths are attached to.
func (s *serve) findBridge(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		return "", fmt.Errorf("ip -o -4 addr show: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "inet" && strings.HasPrefix(f[3], s.cidr.host+"/") {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("no link holds %s, the host's address of --machines-cidr %s", s.cidr.host, s.cidr.text)
}

// leftLinks are the links attached to serve's bridge, and the bridge itself once stopped.
func (s *serve) leftLinks(ctx context.Context, stopped bool) ([]string, error) {
	out, err := exec.CommandContext(ctx, "ip", "-o", "link").Output()
	if err != nil {
		return nil, fmt.Errorf("ip -o link: %w", err)
	}
	return linksOf(string(out), s.bridge, stopped), nil
}

// linksOf picks from `ip -o link` the links whose master is bridge, and bridge itself when
// withBridge.
func linksOf(ipLink, bridge string, withBridge bool) []string {
	var out []string
	for _, line := range strings.Split(ipLink, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if (withBridge && name == bridge) || strings.Contains(line, " master "+bridge+" ") {
			out = append(out, name)
		}
	}
	return out
}

// leftMounts are the host's mounts at or under --machines-dir.
func (s *serve) leftMounts() ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return mountsUnder(string(b), absPath(s.machinesDir)), nil
}

// mountsUnder picks from mountinfo the mount points at or under dir.
func mountsUnder(mountinfo, dir string) []string {
	var out []string
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		if mp := f[4]; mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	return out
}

// leftDirs are the machine directories under --machines-dir/machines.
func (s *serve) leftDirs() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.machinesDir, "machines"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out, nil
}

// leftRules are the iptables rules and chains (filter and nat tables) that name the bridge.
func (s *serve) leftRules(ctx context.Context) ([]string, error) {
	var out []string
	for _, table := range []string{"filter", "nat"} {
		b, err := exec.CommandContext(ctx, "iptables", "-t", table, "-S").Output()
		if err != nil {
			return nil, fmt.Errorf("iptables -t %s -S: %w", table, err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, s.bridge) {
				out = append(out, table+": "+line)
			}
		}
	}
	return out, nil
}
