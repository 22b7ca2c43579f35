package main

import (
	"flag"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/resellerd"
)

// addSafeFlags registers the flags that make a shared resellerd safe: the webhook policy and the
// event retention (addWebhookFlags), the proxies whose forwarding headers name the client, and
// the key file that encrypts the secrets at rest (addSecretsFlag). Called from addServeFlags,
// so serve and dev both take them.
func addSafeFlags(fs *flag.FlagSet, o *serveOptions, def serveOptions) {
	addWebhookFlags(fs, &o.Config, def.Config)
	o.Config.TrustedProxies = append(o.Config.TrustedProxies[:0], def.Config.TrustedProxies...)
	fs.Var((*cliflag.CIDRList)(&o.Config.TrustedProxies), "trusted-proxies",
		"address ranges (`CIDR,...`) of the load balancers or reverse proxies in front of the API, such as 10.0.0.0/8; a request from one is counted (failed-key limit, rate limits, access log key client) by the right-most address of its Forwarded or X-Forwarded-For header that is not itself in these ranges; from any other peer those headers are ignored")
	addSecretsFlag(fs, &o.Config, def.Config)
	fs.BoolVar(&o.StrictKeyFile, "strict-key-file", def.StrictKeyFile,
		"refuse to start when --secrets-key-file may be read or written by its group or others (chmod 600 it), instead of only warning")
}

// addSecretsFlag registers --secrets-key-file on fs, filling c with the default def. serve, dev,
// seed (which writes webhooks and servers) and secrets rotate take it, under one name and one
// RESELLER_ variable.
func addSecretsFlag(fs *flag.FlagSet, c *resellerd.Config, def resellerd.Config) {
	fs.StringVar(&c.SecretsKeyFile, "secrets-key-file", def.SecretsKeyFile,
		"file of base64 keys (`FILE`), 32 bytes each, one a line (# comments): the first encrypts the webhook signing secrets, root passwords and app inputs stored in the database (AES-256-GCM), every one decrypts them, so a new key goes first and the old ones stay until resellerd secrets rotate has run; make one with: head -c 32 /dev/urandom | base64. Without it serve stores them as plain text, and dev uses a built-in key")
}

// addWebhookFlags registers serve's webhook policy (which URLs a webhook may have and which
// addresses it may reach) and its event retention on fs, filling c with the defaults def.
// `resellerd seed`, which sets webhooks on a live database, takes the same flags, so a seed
// obeys the operator's policy under the same names and RESELLER_ variables.
func addWebhookFlags(fs *flag.FlagSet, c *resellerd.Config, def resellerd.Config) {
	fs.BoolVar(&c.AllowHTTPWebhooks, "allow-http-webhooks", def.AllowHTTPWebhooks, "for tests only: also accept http:// webhook URLs on a loopback host and let webhooks reach loopback receivers on this machine")
	c.WebhookAllowCIDRs = append(c.WebhookAllowCIDRs[:0], def.WebhookAllowCIDRs...)
	fs.Var((*cliflag.CIDRList)(&c.WebhookAllowCIDRs), "webhook-allow-cidr",
		"internal address ranges (`CIDR,...`) webhooks may reach all the same, such as 10.20.0.0/16,fd00:1::/64; every other address the IANA special-purpose registries mark not globally reachable (loopback, private, link-local, CGNAT, documentation, benchmarking, 6to4 or NAT64 forms of those, ...) is refused")
	fs.DurationVar(&c.RetainEvents, "retain-events", def.RetainEvents,
		"how long delivered and abandoned events and their deliveries are kept before housekeeping deletes them")
}

// validateSafe checks the values of the flags of addSafeFlags.
func (o serveOptions) validateSafe() error {
	return validateWebhookFlags("serve", o.Config)
}

// validateWebhookFlags checks the values of the flags of addWebhookFlags for the command cmd.
func validateWebhookFlags(cmd string, c resellerd.Config) error {
	if c.RetainEvents < 0 {
		return fmt.Errorf("%w: %s: --retain-events must not be negative (0 is 168h)", errUsage, cmd)
	}
	return nil
}
