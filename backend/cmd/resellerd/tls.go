package main

import (
	"crypto/tls"
	"flag"
	"fmt"

	"github.com/reseller/terraform-provider-reseller/backend/internal/httpserve"
)

// addTLSFlags registers --tls-cert and --tls-key: with both, every listener serves HTTPS.
func addTLSFlags(fs *flag.FlagSet, o *serveOptions, def serveOptions) {
	fs.StringVar(&o.TLSCert, "tls-cert", def.TLSCert, "PEM certificate (chain) `FILE`: with --tls-key, every listener serves HTTPS (TLS 1.2 minimum) instead of plain HTTP")
	fs.StringVar(&o.TLSKey, "tls-key", def.TLSKey, "PEM private key `FILE` of --tls-cert")
}

// validateTLS refuses one of --tls-cert and --tls-key without the other.
func (o serveOptions) validateTLS() error {
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return fmt.Errorf("%w: serve: --tls-cert and --tls-key go together: give both or neither", errUsage)
	}
	return nil
}

// tlsConfig is the TLS configuration of the listeners, nil for plain HTTP
// (httpserve.TLSConfig).
func (o serveOptions) tlsConfig() (*tls.Config, error) {
	return httpserve.TLSConfig(o.TLSCert, o.TLSKey)
}
