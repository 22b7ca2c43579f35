package main

import (
	"flag"
	"strings"
	"testing"
)

// TestSubcommandHelp: `serve --help` and each account subcommand's -h/--help list every flag of
// that command with its default and its RESELLER_ variable on stdout, and exit 0.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	serveFlags := flag.NewFlagSet("serve", flag.ContinueOnError)
	addServeFlags(serveFlags, &serveOptions{}, serveDefaults)
	for _, tt := range []struct {
		args []string
		want []string // lines the help must hold
	}{
		{[]string{"serve", "--help"}, nil}, // every flag of serve, checked below
		{[]string{"serve", "-h"}, []string{"--listen", "default: 127.0.0.1:8080   variable: RESELLER_LISTEN"}},
		{[]string{"account", "create", "--help"}, []string{"usage: resellerd account create", "--balance",
			"default: 100   variable: RESELLER_BALANCE", "--language", "default: fa   variable: RESELLER_LANGUAGE"}},
		{[]string{"account", "rotate-key", "--help"}, []string{"--account", "variable: RESELLER_ACCOUNT"}},
		{[]string{"account", "topup", "-h"}, []string{"--amount", "--payment-type", "default: card   variable: RESELLER_PAYMENT_TYPE"}},
		{[]string{"seed", "--help"}, []string{"--db", "variable: RESELLER_DB", "--allow-http-webhooks", "default: false   variable: RESELLER_ALLOW_HTTP_WEBHOOKS",
			"--webhook-allow-cidr", "--retain-events", "default: 168h0m0s   variable: RESELLER_RETAIN_EVENTS"}},
		{[]string{"dev", "--help"}, []string{"--env-file", "--seed", "--state", "variable: RESELLER_STATE", "--tls-cert", "--log-level", "--metrics-listen", "--retain-events"}},
	} {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), tt.args, &stdout, &stderr, noEnv); code != exitOK || stderr.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q; want 0 and nothing", tt.args, code, stderr.String())
		}
		out := stdout.String()
		want := tt.want
		if want == nil {
			serveFlags.VisitAll(func(f *flag.Flag) {
				want = append(want, "--"+f.Name, "default: "+defaultText(f)+"   variable: "+envName(f.Name))
			})
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: help lacks %q:\n%s", tt.args, w, out)
			}
		}
		if strings.Contains(out, "resellerd account topup --account N") && tt.args[0] == "serve" {
			t.Errorf("%v printed the general usage, not its flags", tt.args)
		}
	}
	if !strings.Contains(help(t, "serve", "--help"), "default: ./data/reseller.db   variable: RESELLER_DB") {
		t.Error("serve --help lacks --db's default")
	}
}

func help(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	run(t.Context(), args, &stdout, &stderr, noEnv)
	return stdout.String()
}
