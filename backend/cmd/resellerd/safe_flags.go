package main

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
	"github.com/reseller/terraform-provider-reseller/backend/internal/devserver"
	"github.com/reseller/terraform-provider-reseller/backend/internal/secrets"
	"github.com/reseller/terraform-provider-reseller/backend/server"
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
func addSecretsFlag(fs *flag.FlagSet, c *server.Config, def server.Config) {
	fs.StringVar(&c.SecretsKeyFile, "secrets-key-file", def.SecretsKeyFile,
		"file of base64 keys (`FILE`), 32 bytes each, one a line (# comments): the first encrypts the webhook signing secrets, root passwords and app inputs stored in the database (AES-256-GCM), every one decrypts them, so a new key goes first and the old ones stay until resellerd secrets rotate has run; make one with: head -c 32 /dev/urandom | base64. Without it serve stores them as plain text, and dev uses a built-in key")
}

// warnPlainSecrets logs serve's one warning at start when it keeps the secrets readable to
// anyone with the database: without a key file (on a dev database they are under dev's built-in
// key, which is no secret either). It is called once the backend has started: a database whose
// secrets are encrypted is refused without a key, and a warning that they are stored in plain
// text before that refusal would say the opposite of what is true.
func warnPlainSecrets(logger *slog.Logger, c server.Config) {
	if c.SecretsKeyFile == "" {
		logger.Warn("no --secrets-key-file: webhook signing secrets, root passwords and app inputs are stored as plain text " +
			"in the database and in every backup of it; see backend/docs/sharing-safely.md")
	}
}

// checkKeyFile checks who may read --secrets-key-file: a file its group or others may read or
// write (mode & 0o077) lets other users of the machine read every secret of the database, or
// replace the keys. It is logged as a warning naming the file and its mode, or refused with
// --strict-key-file. Only warned by default because the usual ways of handing a container a
// file make it 0644 or 0444 (Kubernetes secret volumes, Docker and Compose secrets), inside a
// container whose only user is resellerd: refusing those would break deployments that are safe.
// See backend/docs/sharing-threat-model.md.
func checkKeyFile(logger *slog.Logger, o serveOptions) error {
	path := o.Config.SecretsKeyFile
	if path == "" {
		return nil
	}
	mode, err := secrets.Exposure(path)
	if err != nil || mode == 0 {
		return err
	}
	if o.StrictKeyFile {
		return fmt.Errorf("--secrets-key-file %s has mode %04o: its group or others may read it; chmod 600 it "+
			"(refused because of --strict-key-file)", path, mode)
	}
	logger.Warn("--secrets-key-file may be read by other users than resellerd's: chmod 600 it (--strict-key-file refuses to start instead)",
		slog.String("file", path), slog.String("mode", fmt.Sprintf("%04o", mode)))
	return nil
}

// devKeyOnDevDB has serve (and seed) open a database resellerd dev created with dev's built-in
// key when given no key file, as dev encrypted its secrets with it: serve on a dev database
// (which it warns about, devserver.WarnIfDevDB) keeps working as it did before secrets were encrypted.
func devKeyOnDevDB(c *server.Config) {
	if c.SecretsKeyFile != "" {
		return
	}
	if path, ok := devserver.SQLitePath(c.DB); ok && devserver.IsDevDB(path) {
		c.DevSecrets = true
	}
}

// addWebhookFlags registers serve's webhook policy (which URLs a webhook may have and which
// addresses it may reach) and its event retention on fs, filling c with the defaults def.
// `resellerd seed`, which sets webhooks on a live database, takes the same flags, so a seed
// obeys the operator's policy under the same names and RESELLER_ variables.
func addWebhookFlags(fs *flag.FlagSet, c *server.Config, def server.Config) {
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
func validateWebhookFlags(cmd string, c server.Config) error {
	if c.RetainEvents < 0 {
		return fmt.Errorf("%w: %s: --retain-events must not be negative (0 is 168h)", errUsage, cmd)
	}
	return nil
}
