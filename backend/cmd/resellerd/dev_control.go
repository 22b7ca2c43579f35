package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/server"
)

// devControlOptions are the flags of `resellerd dev` that shape its test-control API.
type devControlOptions struct {
	// DevAllowedHosts are Host names /_dev/ accepts besides loopback and the listeners' hosts
	// (--dev-allowed-hosts): the name a container is published or reached under.
	DevAllowedHosts []string
	// JournalSize is how many requests and webhook deliveries the journal keeps (0: off).
	JournalSize int
	// MaxCheckpoints and MaxCheckpointBytes bound the checkpoints kept at once, in number and
	// in bytes on disk: a looping script would otherwise fill the disk.
	MaxCheckpoints     int
	MaxCheckpointBytes int64
}

// addDevControlFlags registers the flags of devControlOptions on fs.
func addDevControlFlags(fs *flag.FlagSet, o *devControlOptions) {
	fs.Var((*hostList)(&o.DevAllowedHosts), "dev-allowed-hosts",
		"Host names (`NAME,...`) the test-control API /_dev/ accepts besides loopback names and addresses and --listen's host, such as the name of a container reached under another name; any other Host gets 403 (DNS rebinding)")
	fs.IntVar(&o.JournalSize, "journal-size", devapi.DefaultJournalSize,
		"requests and webhook deliveries the request journal (GET /_dev/requests) keeps, the oldest dropped first; 0 turns it off")
	fs.IntVar(&o.MaxCheckpoints, "max-checkpoints", devapi.DefaultMaxCheckpoints,
		"checkpoints (POST /_dev/checkpoints) kept at once; the next save is refused 409 checkpoint_limit until one is deleted")
	fs.Int64Var(&o.MaxCheckpointBytes, "max-checkpoint-bytes", devapi.DefaultMaxCheckpointBytes,
		"bytes the checkpoints may take on disk together; a save that would go over is refused 409 checkpoint_limit")
}

func (o devControlOptions) validateControl() error {
	switch {
	case o.JournalSize < 0 || o.JournalSize > devapi.MaxJournalSize:
		return fmt.Errorf("%w: dev: --journal-size must be from 0 (off) to %d", errUsage, devapi.MaxJournalSize)
	case o.MaxCheckpoints < 1:
		return fmt.Errorf("%w: dev: --max-checkpoints must be at least 1", errUsage)
	case o.MaxCheckpointBytes < 1:
		return fmt.Errorf("%w: dev: --max-checkpoint-bytes must be at least 1", errUsage)
	}
	return nil
}

// devControls are the request journal and the fault rules of dev's test-control API, which
// stand around the API (controls.wrap) and outlive every reset of the backend.
type devControls struct {
	journal *devapi.Journal // nil: off
	faults  *devapi.Faults
}

// newDevControls makes the journal and the fault rules of o, and gives the journal the
// webhook deliveries of every backend cfg starts.
func newDevControls(o devControlOptions, cfg *server.Config, b *devBackend) devControls {
	c := devControls{
		journal: devapi.NewJournal(devapi.JournalConfig{Size: o.JournalSize, Clock: cfg.Clock, Catalog: catalog.New()}),
		faults:  devapi.NewFaults(devapi.FaultsConfig{AccountOf: b.accountOf}),
	}
	if c.journal != nil {
		cfg.DeliveryObserver = c.journal
	}
	return c
}

// wrap puts the fault rules, then the journal around the API: the journal sees faulted
// requests too. /_dev/ is mounted beside, so neither touches it.
func (c devControls) wrap(apiHandler http.Handler) http.Handler {
	return c.journal.Wrap(c.faults.Wrap(apiHandler))
}

// accountOf is the account of an API key, authenticated by the backend now running.
func (b *devBackend) accountOf(ctx context.Context, key string) (int64, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.srv == nil {
		return 0, b.errDown()
	}
	return b.srv.AccountOfKey(ctx, key)
}

// guardConfig is what dev's test-control API accepts: loopback, the hosts of o's listeners and
// the allowed hosts.
func (o devOptions) guardConfig() devapi.GuardConfig {
	cfg := devapi.GuardConfig{AllowedHosts: o.DevAllowedHosts, Logger: o.Config.Logger}
	for _, addr := range []string{o.Listen, o.AltListen} {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			cfg.ListenHosts = append(cfg.ListenHosts, host)
		}
	}
	return cfg
}

// hostList is a flag holding comma-separated host names or addresses, without ports.
type hostList []string

func (l *hostList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

// Set replaces the list with the names of s, in lower case; an empty s is no name.
func (l *hostList) Set(s string) error {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		if part == "" {
			continue
		}
		if !validHost(part) {
			return fmt.Errorf("%q is not a host name or address (a name such as resellerd or dev.example.com, without scheme or port)", part)
		}
		out = append(out, part)
	}
	*l = out
	return nil
}

// validHost accepts an IP address or a DNS name of letters, digits, hyphens and dots.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	if len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
