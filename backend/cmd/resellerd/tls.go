package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
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

// tlsConfig is the TLS configuration of the listeners, nil for plain HTTP. The certificate is
// read once, at start, so a missing or unreadable file stops serve at once. TLS 1.2 is the
// minimum: older versions have known weaknesses, and every client the API has speaks 1.2.
func (o serveOptions) tlsConfig() (*tls.Config, error) {
	if o.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("serve: --tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, nil
}

// serveOn serves hs on ln: HTTPS with hs.TLSConfig when useTLS, plain HTTP otherwise. The
// choice is the caller's, made before any listener serves: net/http's HTTP/2 set-up gives a
// plain server a TLSConfig of its own on the first Serve, so hs.TLSConfig cannot tell.
func serveOn(hs *http.Server, ln net.Listener, useTLS bool) error {
	if useTLS {
		return hs.ServeTLS(ln, "", "")
	}
	return hs.Serve(ln)
}
