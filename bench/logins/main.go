// Command logins measures `resellerd serve --machines sandbox` at the real limits: N Linux
// servers ordered at once (10 per account, POST /instances' limit per minute), the time from
// each order deployed to the first SSH login that runs `hostname`, what an idle machine costs
// in memory and CPU, and that deleting them all leaves nothing on the host; with -transfer, SSH
// copies in the first machine against OpenSSH's sshd there (transfer.go). It needs root, as
// the machines do. See bench/README.md ("logins").
package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"
)

// perAccount is how many servers each account orders: POST /instances allows 10 a minute per
// key, and the accounts are made with --server-limit and --order-limit 10.
const perAccount = 10

type options struct {
	n          int
	cidr       netip.Prefix
	idle       time.Duration
	resellerd  string
	keep       bool
	timeout    time.Duration
	image      string // serve's --machines-image ("": its busybox image)
	transferMB int    // with the SSH transfer comparison (transfer.go): the size of each copy
	rounds     int    // rounds of the comparison
	sshd       string // an OpenSSH sshd binary copied into the machine ("": the image's)
	pprof      string // serve's --pprof address ("": none), to profile it while the machines idle
}

func main() {
	var o options
	var cidr string
	flag.IntVar(&o.n, "n", 50, "Linux servers ordered at once")
	flag.StringVar(&cidr, "cidr", "198.18.240.0/22", "--machines-cidr of the serve under test (must not be routed on this host)")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "idle window for the machines' CPU figure")
	flag.StringVar(&o.resellerd, "resellerd", "", "resellerd binary to measure; empty builds ./backend/cmd/resellerd")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (database, serve's log, machines dir)")
	flag.DurationVar(&o.timeout, "timeout", 15*time.Minute, "the whole run's deadline")
	flag.StringVar(&o.image, "image", "", "serve's --machines-image `DIR` (the transfer comparison needs one with openssh-server)")
	flag.IntVar(&o.transferMB, "transfer", 0, "also compare SSH transfers of `MB` MiB in the first machine with OpenSSH's sshd there (0: no)")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds of the transfer comparison")
	flag.StringVar(&o.sshd, "sshd", "", "an OpenSSH sshd `BINARY` to copy into the machine for the comparison, when -image has none")
	flag.StringVar(&o.pprof, "pprof", "", "serve's --pprof `ADDR` (e.g. 127.0.0.1:6060): profile serve while the machines idle, with go tool pprof http://ADDR/debug/pprof/profile")
	flag.Parse()
	if o.transferMB < 0 || o.rounds < 1 {
		usageError("-transfer: want 0 or more MiB; -rounds: want at least 1")
	}
	if o.n < 1 {
		usageError("-n: want at least 1")
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		usageError(fmt.Sprintf("-cidr %q: want an IPv4 range such as 198.18.240.0/22", cidr))
	}
	o.cidr = p.Masked()
	if os.Geteuid() != 0 {
		usageError("--machines sandbox needs root: run the bench as root (sudo -E go run ./bench/logins)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	err = run(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func usageError(msg string) {
	fmt.Fprintln(os.Stderr, "bench: "+msg)
	os.Exit(2)
}

// run builds resellerd, starts serve with machines, and takes every figure in turn.
func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "bench-machines-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "keeping", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	s, err := startServe(ctx, o, dir)
	if err != nil {
		return err
	}
	defer s.kill() // on an error below; a clean run has stopped it already
	r, err := measure(ctx, o, s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "serve's log (last lines):\n%s\n", s.logTail())
		return err
	}
	printSummary(o, r, s.tooMany.Load())
	if len(r.transfers) > 0 {
		printTransfers(o.transferMB, r.transfers)
	}
	if !r.clean() {
		return fmt.Errorf("something was left behind (see the table)")
	}
	return nil
}

// result is every figure of a run.
type result struct {
	logins     []login
	storeTimes bool         // every order's finished_at was also read from the store, to the nanosecond
	memory     memoryFigure // idle machines, after every login
	cpu        cpuFigure    // idle machines over options.idle
	deleteTook time.Duration
	afterDel   leftovers // looked for until clean, from the last DELETE answered
	stopped    time.Duration
	exitCode   int
	afterEnd   leftovers        // looked for until clean, from serve's exit
	transfers  []transferFigure // with -transfer
}

func (r result) clean() bool { return r.afterDel.none() && r.afterEnd.none() && r.exitCode == 0 }

// Bounds of the looks for leftovers: the machines go at the housekeeping worker's next ticks
// after the DELETEs; after serve's exit only the kernel's own teardown remains.
const (
	cleanAfterDelete = 2 * time.Minute
	cleanAfterStop   = 10 * time.Second
)

// measure orders, logs in, measures the idle machines, deletes them and stops serve.
func measure(ctx context.Context, o options, s *serve) (result, error) {
	var r result
	before, err := readBaseline(s.pid())
	if err != nil {
		return r, err
	}
	if r.logins, err = orderAndLogIn(ctx, o, s); err != nil {
		return r, err
	}
	if r.storeTimes, err = storeFinishTimes(ctx, s.db, r.logins); err != nil {
		return r, err
	}
	time.Sleep(3 * time.Second) // the SSH sessions' processes end, the machines settle
	if r.memory, err = idleMemory(s.pid(), before); err != nil {
		return r, err
	}
	if len(r.memory.perMachine) != o.n {
		return r, fmt.Errorf("found %d machines' PID namespaces under serve, want %d", len(r.memory.perMachine), o.n)
	}
	fmt.Fprintf(os.Stderr, "bench: %d machines logged into; idle window of %s from %s\n", o.n, o.idle, time.Now().UTC().Format(time.TimeOnly))
	if r.cpu, err = idleCPU(s.pid(), o.idle); err != nil {
		return r, err
	}
	if o.transferMB > 0 {
		if r.transfers, err = compareTransfers(ctx, o, filepath.Dir(s.db), r.logins[0]); err != nil {
			return r, err
		}
	}
	known := r.memory.namespaces
	if r.deleteTook, err = deleteAll(ctx, s, r.logins); err != nil {
		return r, err
	}
	if r.afterDel, err = waitClean(ctx, s, known, cleanAfterDelete, false); err != nil {
		return r, err
	}
	if r.stopped, r.exitCode, err = s.stop(30 * time.Second); err != nil {
		return r, err
	}
	r.afterEnd, err = waitClean(ctx, s, known, cleanAfterStop, true)
	return r, err
}
