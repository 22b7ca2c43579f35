package devserver

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devapi"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// devControls are the request journal and the fault rules of dev's test-control API, which
// stand around the API (controls.wrap) and outlive every reset of the backend.
type devControls struct {
	journal *devapi.Journal // nil: off
	faults  *devapi.Faults
}

// newDevControls makes the journal (of journalSize entries) and the fault rules, and gives the
// journal the webhook deliveries of every backend cfg starts.
func newDevControls(journalSize int, cfg *resellerd.Config, b *backend) devControls {
	c := devControls{
		journal: devapi.NewJournal(devapi.JournalConfig{Size: journalSize, Clock: cfg.Clock, Catalog: catalog.New()}),
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
func (b *backend) accountOf(ctx context.Context, key string) (int64, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.srv == nil {
		return 0, b.errDown()
	}
	return b.srv.AccountOfKey(ctx, key)
}

// HostList is a flag holding comma-separated host names or addresses, without ports
// (--dev-allowed-hosts).
type HostList []string

func (l *HostList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

// Set replaces the list with the names of s, in lower case; an empty s is no name.
func (l *HostList) Set(s string) error {
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
		if !hostChar(c) {
			return false
		}
	}
	return true
}

// hostChar is a character of a lower-case DNS name: a letter, a digit, a hyphen or a dot.
func hostChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}
