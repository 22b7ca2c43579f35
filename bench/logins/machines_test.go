package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The bench's own reading of /proc, `ip` and the API (the figures themselves come from a real
// run, never from a test).

func TestParseStatReadsParentAndTicksPastAnOddCommandName(t *testing.T) {
	line := "4242 (a) (b c) S 17 4242 4242 0 -1 4194560 100 0 0 0 31 12 0 0 20 0 3 0 1000 1000 100\n"
	ppid, ticks, err := parseStat([]byte(line))
	if err != nil || ppid != 17 || ticks != 43 {
		t.Fatalf("parseStat = %d, %d, %v; want 17, 43 (utime 31 + stime 12), nil", ppid, ticks, err)
	}
	if _, _, err := parseStat([]byte("4242 (x) S 1")); err == nil {
		t.Fatal("parseStat accepted a line with too few fields")
	}
}

func TestParseSchedstatReadsTimeOnACPUAndRuns(t *testing.T) {
	ns, runs, err := parseSchedstat([]byte("1534021 88210 17\n"))
	if err != nil || ns != 1534021 || runs != 17 {
		t.Fatalf("parseSchedstat = %d, %d, %v; want 1534021, 17, nil", ns, runs, err)
	}
	if _, _, err := parseSchedstat([]byte("1534021 88210\n")); err == nil {
		t.Fatal("parseSchedstat of two fields: no error")
	}
}

func TestMachineProcsTakesServesDescendantsOutsideTheHostNamespace(t *testing.T) {
	const host, serve = "pid:[1]", 100
	all := []proc{
		{pid: 1, ppid: 0, pidNS: host},
		{pid: serve, ppid: 1, pidNS: host},
		{pid: 101, ppid: serve, pidNS: "pid:[7]"},  // a machine's init
		{pid: 102, ppid: 101, pidNS: "pid:[7]"},    // its agent
		{pid: 103, ppid: serve, pidNS: host},       // serve's child on the host: not a machine
		{pid: 200, ppid: 1, pidNS: "pid:[8]"},      // someone else's namespace
		{pid: 300, ppid: 1, pidNS: "pid:[9]"},      // an orphan of a machine seen before
		{pid: 301, ppid: 300, pidNS: "pid:[9]"},    // its child
		{pid: 400, ppid: 200, pidNS: "pid:[8]"},    // someone else's, nested
		{pid: 500, ppid: 102, pidNS: "pid:[10]"},   // a namespace made inside a machine
		{pid: 600, ppid: 999, pidNS: "pid:[11]"},   // a parent that is not listed
		{pid: 700, ppid: 700, pidNS: "pid:[12]"},   // a loop must end
		{pid: 800, ppid: serve, pidNS: "pid:[13]"}, // a second machine
	}
	got := machineProcs(all, serve, host, map[string]bool{"pid:[9]": true})
	want := map[string][]int{"pid:[7]": {101, 102}, "pid:[9]": {300, 301}, "pid:[10]": {500}, "pid:[13]": {800}}
	if len(got) != len(want) {
		t.Fatalf("machineProcs found namespaces %v, want %v", keys(got), want)
	}
	for ns, pids := range want {
		var have []int
		for _, p := range got[ns] {
			have = append(have, p.pid)
		}
		if !slices.Equal(have, pids) {
			t.Errorf("namespace %s: processes %v, want %v", ns, have, pids)
		}
	}
}

func keys(m map[string][]proc) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestParseRollupReadsPSSItsSplitAndUSS(t *testing.T) {
	text := "55d97bcf8000-7ffc2695f000 ---p 00000000 00:00 0 [rollup]\nRss: 1696 kB\nPss: 315 kB\nPss_Dirty: 112 kB\n" +
		"Pss_Anon: 112 kB\nPss_File: 203 kB\nShared_Clean: 1544 kB\nPrivate_Clean: 40 kB\nPrivate_Dirty: 112 kB\nAnonymous: 113 kB\n"
	r, err := parseRollup([]byte(text))
	want := rollup{pss: 315, pssAnon: 112, pssFile: 203, uss: 152, anon: 113}
	if err != nil || r != want {
		t.Fatalf("parseRollup = %+v, %v; want %+v", r, err, want)
	}
	if _, err := parseRollup([]byte("Rss: 1 kB\n")); err == nil {
		t.Fatal("parseRollup accepted a text without Pss")
	}
}

func TestLinksOfPicksTheBridgesPortsAndTheBridgeOnlyWhenAsked(t *testing.T) {
	out := strings.Join([]string{
		"1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT",
		"5: rsmab: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT",
		"6: rv01@if5: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master rsmab state UP",
		"7: rv02@if9: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master rsmabc state UP", // another bridge
		"8: rsmabc: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP",
	}, "\n")
	if got := linksOf(out, "rsmab", false); !slices.Equal(got, []string{"rv01"}) {
		t.Errorf("linksOf while serve runs = %v, want [rv01]", got)
	}
	if got := linksOf(out, "rsmab", true); !slices.Equal(got, []string{"rsmab", "rv01"}) {
		t.Errorf("linksOf after serve stopped = %v, want [rsmab rv01]", got)
	}
}

func TestMountsUnderTakesTheDirAndBelowOnly(t *testing.T) {
	info := strings.Join([]string{
		"22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
		"90 22 0:50 / /tmp/b/machines rw - tmpfs tmpfs rw",
		"91 22 0:51 / /tmp/b/machines/machines/vm-1/root rw - overlay overlay rw",
		"92 22 0:52 / /tmp/b/machines2 rw - tmpfs tmpfs rw",
	}, "\n")
	got := mountsUnder(info, "/tmp/b/machines")
	if !slices.Equal(got, []string{"/tmp/b/machines", "/tmp/b/machines/machines/vm-1/root"}) {
		t.Fatalf("mountsUnder = %v", got)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 90: 90 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond} {
		if got := percentile(slices.Clone(ds), p); got != want {
			t.Errorf("p%v = %s, want %s", p, got, want)
		}
	}
	if got := percentile([]time.Duration{3, 1, 2}, 99); got != 3 {
		t.Errorf("p99 of three = %d, want the largest", got)
	}
}

func TestSummarizeTakesMeanAndEachMaxOnItsOwn(t *testing.T) {
	m := summarize(map[string]rollup{"a": {pss: 10, uss: 1}, "b": {pss: 2, uss: 5}})
	if m.count != 2 || m.mean.pss != 6 || m.max.pss != 10 || m.max.uss != 5 || m.total.pss != 12 {
		t.Fatalf("summarize = %+v", m)
	}
}

func TestTakeWaitsForCredentialsAndRefusesAPortOtherThan22(t *testing.T) {
	item := func(pending bool, port int) orderItem {
		return orderItem{OrderID: 7, Status: "deployed", FinishedAt: "2026-11-28T02:45:27Z", Server: &orderServer{ID: 3,
			Credentials: &credentials{Username: "root", Password: "pw", Port: port, IPv4: "198.18.240.2", Pending: pending}}}
	}
	now := time.Date(2026, 11, 28, 2, 45, 29, 0, time.UTC)
	var l login
	if err := l.take(item(true, 22), now); err != nil || !l.seen.IsZero() || l.instanceID != 3 {
		t.Fatalf("pending credentials: seen %v, instance %d, err %v; want not seen, instance 3", l.seen, l.instanceID, err)
	}
	if err := l.take(item(false, 22), now); err != nil || !l.seen.Equal(now) || l.ipv4 != "198.18.240.2" ||
		!l.finished.Equal(time.Date(2026, 11, 28, 2, 45, 27, 0, time.UTC)) {
		t.Fatalf("delivered credentials: %+v, %v", l, err)
	}
	var other login
	if err := other.take(item(false, 3389), now); err == nil {
		t.Fatal("take accepted credentials on port 3389")
	}
}
