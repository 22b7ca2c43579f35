package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMachinesFlagRefusals: a --machines value other than sim or sandbox, a --machines-cidr
// addresses cannot come from, a --machines-pids-max out of bounds, a --console-ttl not positive
// and a --public-url that is not an absolute http(s) URL exit 2 naming the flag, on
// serve and on dev, from the flag and from its RESELLER_ variable. (dev's --state beside
// --machines sandbox is no refusal: the machines' disks are kept beside the file.)
func TestMachinesFlagRefusals(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
	}{
		{"serve unknown mode", nil, []string{"serve", "--db", db, "--machines", "docker"}, `--machines must be sim or sandbox, not "docker"`},
		{"dev unknown mode", nil, []string{"dev", "--listen", "127.0.0.1:0", "--machines", "vm"}, `--machines must be sim or sandbox, not "vm"`},
		{"unknown mode from the variable", map[string]string{"RESELLER_MACHINES": "qemu"}, []string{"serve", "--db", db}, "--machines must be"},
		{"cidr not a range", nil, []string{"serve", "--db", db, "--machines-cidr", "198.18.0.1"}, "machines-cidr"},
		{"cidr too narrow", nil, []string{"serve", "--db", db, "--machines-cidr", "198.18.0.0/30"}, "--machines-cidr: must be from /8 to /28"},
		{"cidr IPv6", nil, []string{"serve", "--db", db, "--machines-cidr", "fd00::/64"}, "--machines-cidr: must be an IPv4 range"},
		{"cidr not the range's start", nil, []string{"serve", "--db", db, "--machines-cidr", "198.18.0.7/16"}, "is not the start of its range"},
		{"egress allow without egress", nil, []string{"serve", "--db", db, "--machines-egress-allow-cidr", "10.1.0.0/16"},
			"--machines-egress-allow-cidr needs --machines-egress"},
		{"egress allow IPv6 from the variable", map[string]string{"RESELLER_MACHINES_EGRESS_ALLOW_CIDR": "fd00::/64"},
			[]string{"dev", "--listen", "127.0.0.1:0", "--machines-egress"}, "--machines-egress-allow-cidr: fd00::/64 is not an IPv4 range"},
		{"pids max too small", nil, []string{"serve", "--db", db, "--machines-pids-max", "8"}, "--machines-pids-max must be from 32 to 4194304, not 8"},
		{"pids max zero", nil, []string{"dev", "--listen", "127.0.0.1:0", "--machines-pids-max", "0"}, "--machines-pids-max must be from 32"},
		{"pids max past the kernel's", map[string]string{"RESELLER_MACHINES_PIDS_MAX": "5000000"}, []string{"dev", "--listen", "127.0.0.1:0"}, "--machines-pids-max must be from 32"},
		{"pids max not a number", nil, []string{"serve", "--db", db, "--machines-pids-max", "many"}, "machines-pids-max"},
		{"image for Windows", nil, []string{"serve", "--db", db, "--machines-image-for", "5=/srv/img"}, "--machines-image-for: 5 is not the id of a Linux template (1 Ubuntu 24.04, "},
		{"image for no template, from the variable", map[string]string{"RESELLER_MACHINES_IMAGE_FOR": "3=/srv/a,99=/srv/b"}, []string{"dev", "--listen", "127.0.0.1:0"},
			"--machines-image-for: 99 is not the id"},
		{"image for not ID=DIR", nil, []string{"serve", "--db", db, "--machines-image-for", "debian=/srv/img"}, `"debian=/srv/img" is not ID=PATH`},
		{"image for a missing directory", nil, []string{"serve", "--db", db, "--machines", "sandbox", "--machines-dir", t.TempDir(),
			"--machines-image-for", "3=/nonexistent/debian12"}, `--machines-image-for "Debian 12" /nonexistent/debian12 is not a directory`},
		{"console ttl zero", nil, []string{"serve", "--db", db, "--console-ttl", "0s"}, "--console-ttl must be positive"},
		{"console ttl negative from the variable", map[string]string{"RESELLER_CONSOLE_TTL": "-1m"}, []string{"dev", "--listen", "127.0.0.1:0"},
			"--console-ttl must be positive"},
		{"public url not http", nil, []string{"serve", "--db", db, "--public-url", "ftp://example.com"}, "--public-url must be an http:// or https:// URL"},
		{"public url relative, from the variable", map[string]string{"RESELLER_PUBLIC_URL": "/consoles"}, []string{"dev", "--listen", "127.0.0.1:0"},
			"--public-url must be an http:// or https:// URL"},
		{"public url with a query", nil, []string{"serve", "--db", db, "--public-url", "https://example.com/?a=1"}, "--public-url must have no credentials, query or fragment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := cli(t, mapEnv(tt.env), tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, exitUsage, tt.wantErr)
			}
		})
	}
}

// TestMachinesFlagsInHelp: serve's help lists the machine flags with their variables and
// defaults, and the usage names them.
func TestMachinesFlagsInHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := cli(t, noEnv, "serve", "--help")
	if code != exitOK {
		t.Fatalf("serve --help: exit %d", code)
	}
	for _, want := range []string{"--machines", "RESELLER_MACHINES", "--machines-dir", "./data/machines", "--machines-cidr",
		"198.18.0.0/16", "RESELLER_MACHINES_IMAGE", "--machines-image-for", "RESELLER_MACHINES_IMAGE_FOR", "--machines-egress",
		"--machines-egress-allow-cidr", "RESELLER_MACHINES_EGRESS_ALLOW_CIDR", "--machines-pids-max", "RESELLER_MACHINES_PIDS_MAX", "4096",
		"--public-url", "RESELLER_PUBLIC_URL", "--console-ttl", "RESELLER_CONSOLE_TTL", "10m0s"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help lacks %q", want)
		}
	}
	if !strings.Contains(usage, "[--machines sim|sandbox]") || !strings.Contains(usage, "[--machines-pids-max 4096]") {
		t.Error("the usage lacks --machines or --machines-pids-max")
	}
	if !strings.Contains(usage, "[--public-url URL] [--console-ttl 10m]") {
		t.Error("the usage lacks --public-url or --console-ttl")
	}
}

// TestMachinesPidsMaxReachesTheConfig: --machines-pids-max and its variable fill
// MachinesConfig.PidsMax on serve and dev, and both default to 4096.
func TestMachinesPidsMaxReachesTheConfig(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	serve := func(env map[string]string, args ...string) int {
		o, err := parseServe(append([]string{"--listen", "127.0.0.1:0", "--db", db}, args...), mapEnv(env))
		if err != nil {
			t.Fatal(err)
		}
		return o.Config.Machines.PidsMax
	}
	dev := func(args ...string) int {
		o, err := parseDev(append([]string{"--listen", "127.0.0.1:0"}, args...), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		return o.Config.Machines.PidsMax
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"serve's default", serve(nil), 4096},
		{"serve's flag", serve(nil, "--machines-pids-max", "64"), 64},
		{"serve's variable", serve(map[string]string{"RESELLER_MACHINES_PIDS_MAX": "100"}), 100},
		{"dev's default", dev(), 4096},
		{"dev's flag", dev("--machines-pids-max", "512"), 512},
	} {
		if c.got != c.want {
			t.Errorf("%s: PidsMax %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestMachinesSandboxWithoutWhatItNeeds: --machines sandbox on a host without what it needs
// (here: no `ip` on PATH) exits 2 with machines.Check's message, before opening anything.
func TestMachinesSandboxWithoutWhatItNeeds(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // not parallel: the whole process looks for ip there
	db := filepath.Join(t.TempDir(), "none.db")
	for _, args := range [][]string{
		{"serve", "--db", db, "--machines", "sandbox", "--machines-dir", t.TempDir()},
		{"dev", "--listen", "127.0.0.1:0", "--machines", "sandbox"},
	} {
		code, _, errOut := cli(t, noEnv, args...)
		if code != exitUsage || !strings.Contains(errOut, "--machines sandbox") || !strings.Contains(errOut, "no `ip` on PATH (apt-get install iproute2)") {
			t.Fatalf("%s: exit %d, stderr %q; want exit 2 with what is missing", args[0], code, errOut)
		}
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("serve opened its database before refusing (%v)", err)
	}
}
