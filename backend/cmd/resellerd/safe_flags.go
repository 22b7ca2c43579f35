package main

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"
)

// addSafeFlags registers the flags that make a shared resellerd safe (issue 17): internal
// webhook ranges admitted. Called from addServeFlags, so serve and dev both take them.
func addSafeFlags(fs *flag.FlagSet, o *serveOptions, def serveOptions) {
	o.Config.WebhookAllowCIDRs = append(o.Config.WebhookAllowCIDRs[:0], def.Config.WebhookAllowCIDRs...)
	fs.Var((*cidrList)(&o.Config.WebhookAllowCIDRs), "webhook-allow-cidr",
		"internal address ranges (`CIDR,...`) webhooks may reach all the same, such as 10.20.0.0/16,fd00:1::/64; every other loopback, private, link-local, CGNAT, multicast or broadcast address is refused")
	fs.DurationVar(&o.Config.RetainEvents, "retain-events", def.Config.RetainEvents,
		"how long delivered and abandoned events and their deliveries are kept before housekeeping deletes them")
}

// validateSafe checks the values of the flags of addSafeFlags.
func (o serveOptions) validateSafe() error {
	if o.Config.RetainEvents < 0 {
		return fmt.Errorf("%w: serve: --retain-events must not be negative (0 is 168h)", errUsage)
	}
	return nil
}

// cidrList is a flag holding comma-separated address prefixes (CIDR notation).
type cidrList []netip.Prefix

func (l *cidrList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, p := range *l {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// Set replaces the list with the prefixes of s; an empty s is no prefix.
func (l *cidrList) Set(s string) error {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return fmt.Errorf("%q is not an address range in CIDR notation (such as 10.20.0.0/16)", part)
		}
		out = append(out, p.Masked())
	}
	*l = out
	return nil
}
