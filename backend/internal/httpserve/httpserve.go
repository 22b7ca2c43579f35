// Package httpserve serves resellerd's handlers: the API on its listeners (plain HTTP or TLS),
// the metrics and probes on a listener of their own, net/http/pprof on loopback, and a graceful
// stop. The command (backend/cmd/resellerd) turns its flags into a Config.
package httpserve

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownGrace bounds how long in-flight requests may finish after a stop signal: longer than
// the slowest request, a webhook test ping waiting 15 seconds for its receiver.
const ShutdownGrace = 20 * time.Second

// The API server's timeouts: a request's headers must arrive within headerTimeout, its body
// within bodyTimeout of its handler's start, its answer be written within writeTimeout, and an
// idle keep-alive connection is closed after idleTimeout.
const (
	headerTimeout = 10 * time.Second
	bodyTimeout   = 30 * time.Second
	writeTimeout  = 60 * time.Second
	idleTimeout   = 2 * time.Minute
)

// Config is where Serve listens.
type Config struct {
	Listen, AltListen string      // the API's addresses; AltListen may be empty
	Pprof             string      // loopback address of net/http/pprof; empty: off
	MetricsListen     string      // address of /metrics, /livez and /readyz; empty: off
	TLS               *tls.Config // nil: plain HTTP
	DB                string      // the database, redacted, for the "listening" log line
	// BodyTimeout bounds the read of a request's body from its handler's start; 0 is 30
	// seconds (bodyTimeout). Tests shorten it.
	BodyTimeout time.Duration
}

// Serve serves h on cfg.Listen (and cfg.AltListen), with pprof on cfg.Pprof and metrics on
// cfg.MetricsListen, until ctx ends, then shuts down gracefully within ShutdownGrace. ready,
// when not nil, is told the bound addresses once the listeners are open: the API's, then the
// metrics listener's.
func Serve(ctx context.Context, cfg Config, h, metrics http.Handler, logger *slog.Logger, ready func([]net.Addr)) error {
	tlsConfig := cfg.TLS
	if cfg.Pprof != "" {
		if err := startPprof(ctx, cfg.Pprof); err != nil {
			return err
		}
	}

	listeners, err := listen(ctx, cfg.Listen, cfg.AltListen)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           withBodyDeadline(h, cmp.Or(cfg.BodyTimeout, bodyTimeout)),
		ReadHeaderTimeout: headerTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// "OPTIONS *" reaches the handler, which answers it in the envelope, instead of
		// net/http's bare 200.
		DisableGeneralOptionsHandler: true,
		TLSConfig:                    tlsConfig,
	}
	errs := make(chan error, len(listeners))
	addrs := make([]net.Addr, 0, len(listeners))
	for _, ln := range listeners {
		addrs = append(addrs, ln.Addr())
		logger.Info("listening", slog.String("addr", ln.Addr().String()), slog.Bool("tls", tlsConfig != nil),
			slog.String("db", cfg.DB))
		go func() { errs <- serveOn(hs, ln, tlsConfig != nil) }()
	}
	if cfg.MetricsListen != "" {
		metricsAddr, err := startMetrics(ctx, cfg.MetricsListen, metrics, h, tlsConfig, logger)
		if err != nil {
			_ = hs.Close()
			return err
		}
		addrs = append(addrs, metricsAddr)
	}
	if ready != nil {
		ready(addrs)
	}

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-errs:
		_ = hs.Close()
		return fmt.Errorf("serve: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// withBodyDeadline gives a request with a body the read deadline d from now, before h reads it.
//
// It stands for the server's ReadTimeout, which would set a deadline on every request, and
// most (a provider's refreshes and waits) are GETs without a body: the timer it moves for each
// was a cost of the read path with nothing to bound. Headers keep their own timeout
// (ReadHeaderTimeout), and net/http clears the deadline once the body is read, as it does
// ReadTimeout's.
func withBodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// It fails only where net/http cannot set a deadline (ErrNotSupported); the
			// body is then read as it comes.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		h.ServeHTTP(w, r)
	})
}

// listen opens every non-empty address, closing those already open if one fails.
func listen(ctx context.Context, addrs ...string) ([]net.Listener, error) {
	var lc net.ListenConfig
	var out []net.Listener
	for _, a := range addrs {
		if a == "" {
			continue
		}
		ln, err := lc.Listen(ctx, "tcp", a)
		if err != nil {
			for _, l := range out {
				_ = l.Close()
			}
			return nil, fmt.Errorf("serve: %w", err)
		}
		out = append(out, ln)
	}
	return out, nil
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

// TLSConfig is the TLS configuration of the listeners serving certFile and keyFile, nil for
// plain HTTP (no certFile). The certificate is read once, at start, so a missing or unreadable
// file stops serve at once. TLS 1.2 is the
// minimum: older versions have known weaknesses, and every client the API has speaks 1.2.
func TLSConfig(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("serve: --tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, nil
}
