package acctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GroupAlive lists the processes of the job's group that are still running (zombies, which have
// ended but are not reaped yet, are left out), read from /proc: after Terraform has gone, what
// is left is a provider nobody will stop.
func (j *Job) GroupAlive() []int {
	j.c.t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		j.c.t.Fatal(err)
	}
	var alive []int
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after
		// its last ")".
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" || fields[2] != strconv.Itoa(j.cmd.Process.Pid) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		alive = append(alive, pid)
	}
	return alive
}
