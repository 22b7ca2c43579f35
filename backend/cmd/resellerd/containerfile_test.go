package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestContainerfile checks the image's contract (make image builds it where podman or docker is
// installed; these machines cannot run containers): the final stage is FROM scratch with nothing
// pulled, the binary is copied in from the host build, the user is not root, /data is the volume
// and resellerd the entrypoint.
func TestContainerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var from, user []string
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
		switch fields := strings.Fields(l); strings.ToUpper(fields[0]) {
		case "FROM":
			from = append(from, fields[1])
		case "USER":
			user = append(user, fields[1])
		}
	}
	if len(from) == 0 || from[len(from)-1] != "scratch" {
		t.Errorf("stages FROM %v: the final one must be scratch", from)
	}
	if len(user) == 0 || strings.HasPrefix(user[len(user)-1], "0") || strings.HasPrefix(user[len(user)-1], "root") {
		t.Errorf("USER %v: the image must not run as root", user)
	}
	for _, want := range []string{"COPY resellerd /resellerd", "COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt",
		"VOLUME /data", `ENTRYPOINT ["/resellerd"]`} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q", want)
		}
	}
}
