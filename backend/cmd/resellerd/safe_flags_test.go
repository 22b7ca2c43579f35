package main

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseSafeFlags: the flags of issue 17 parse from the command line and from their
// RESELLER_ variables, and a bad value is an error naming the flag or the variable.
func TestParseSafeFlags(t *testing.T) {
	t.Parallel()
	wantCIDRs := []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16"), netip.MustParsePrefix("fd00:1::/64")}
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--webhook-allow-cidr", "10.20.0.0/16, fd00:1::/64"}, nil},
		{"environment", nil, map[string]string{"RESELLER_WEBHOOK_ALLOW_CIDR": "10.20.0.0/16,fd00:1::/64"}},
	} {
		o, err := parseServe(tt.args, mapEnv(tt.env))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(o.Config.WebhookAllowCIDRs, wantCIDRs) {
			t.Fatalf("%s: allowed %v, want %v", tt.name, o.Config.WebhookAllowCIDRs, wantCIDRs)
		}
	}
	if o, err := parseServe(nil, noEnv); err != nil || len(o.Config.WebhookAllowCIDRs) != 0 || o.Config.RetainEvents != 168*time.Hour {
		t.Fatalf("default: %+v, %v; want no range admitted and 168h retention", o.Config, err)
	}
	if o, err := parseServe(nil, mapEnv(map[string]string{"RESELLER_RETAIN_EVENTS": "24h"})); err != nil || o.Config.RetainEvents != 24*time.Hour {
		t.Fatalf("RESELLER_RETAIN_EVENTS=24h: %v, %v", o.Config.RetainEvents, err)
	}
	for _, tt := range []struct {
		args    []string
		env     map[string]string
		wantErr string
	}{
		{[]string{"--webhook-allow-cidr", "10.20.0.0"}, nil, "webhook-allow-cidr"},
		{[]string{"--retain-events", "-1h"}, nil, "retain-events"},
		{nil, map[string]string{"RESELLER_RETAIN_EVENTS": "a week"}, "RESELLER_RETAIN_EVENTS"},
		{nil, map[string]string{"RESELLER_WEBHOOK_ALLOW_CIDR": "intranet"}, "RESELLER_WEBHOOK_ALLOW_CIDR"},
	} {
		if _, err := parseServe(tt.args, mapEnv(tt.env)); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Fatalf("%v %v: got %v, want an error naming %s", tt.args, tt.env, err, tt.wantErr)
		}
	}
}

// TestDBIsStrict: serve and the account commands refuse a --db that is neither a path,
// sqlite:PATH nor a postgres:// URL with a usage error naming --db, without echoing the value.
func TestDBIsStrict(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"serve", "--db", "host=db dbname=reseller password=hunter2hunter2"},
		{"serve", "--db", "postgress://u:hunter2hunter2@db/r"},
		{"account", "create", "--db", "mysql://u:hunter2hunter2@db/r"},
	} {
		var stdout, stderr strings.Builder
		code := run(t.Context(), args, &stdout, &stderr, noEnv)
		if code != exitUsage || !strings.Contains(stderr.String(), "--db") || strings.Contains(stderr.String(), "hunter2") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --db without the password", args, code, stderr.String())
		}
	}
}
