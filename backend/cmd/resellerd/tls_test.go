package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCertificate writes a self-signed certificate for 127.0.0.1 and its key to dir and returns
// their paths and a pool that trusts the certificate.
func testCertificate(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "resellerd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeTLS: with --tls-cert and --tls-key both listeners serve HTTPS with the certificate,
// and a client that speaks at most TLS 1.1 gets no connection.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, pool := testCertificate(t, dir)
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--alt-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
		"--db", filepath.Join(dir, "s.db")},
		mapEnv(map[string]string{"RESELLER_TLS_CERT": certFile, "RESELLER_TLS_KEY": keyFile}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := o.tlsConfig(); err != nil || cfg.MinVersion != tls.VersionTLS12 {
		t.Fatalf("tlsConfig = %+v, %v; want TLS 1.2 minimum", cfg, err)
	}
	bound, _ := startServe(t, o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	modern := &http.Client{Timeout: eventWait, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	old := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool,
		MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}}
	if len(bound) != 3 {
		t.Fatalf("bound %v, want the two API listeners and the metrics listener", bound)
	}
	for _, a := range bound { // /livez is on every listener, the metrics one too
		url := "https://" + a.String() + "/livez"
		resp, err := modern.Get(url)
		if err != nil {
			t.Fatalf("HTTPS GET %s: %v", url, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
			t.Fatalf("HTTPS GET %s: %d over %+v, want 200 over TLS 1.2+", url, resp.StatusCode, resp.TLS)
		}
		if resp, err := old.Get(url); err == nil {
			_ = resp.Body.Close()
			t.Fatalf("a TLS 1.1 client got %d from %s, want the handshake refused", resp.StatusCode, url)
		}
	}
}

func TestTLSFlagsGoTogether(t *testing.T) {
	t.Parallel()
	if _, err := parseServe([]string{"--tls-cert", "c.pem"}, noEnv); err == nil || !strings.Contains(err.Error(), "--tls-key") {
		t.Fatalf("--tls-cert alone = %v, want an error naming --tls-key", err)
	}
	dir := t.TempDir()
	o := serveOptions{Listen: "127.0.0.1:0", TLSCert: filepath.Join(dir, "missing.pem"), TLSKey: filepath.Join(dir, "k.pem")}
	o.Config.DB = filepath.Join(dir, "s.db")
	if err := serve(context.Background(), o, slog.New(slog.DiscardHandler), nil); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("serve with a missing certificate = %v, want an error naming --tls-cert", err)
	}
}
