package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// startMetrics serves metrics at /metrics, and the probes of api, on a listener of its own until
// ctx ends, and returns its address; with tlsConfig it speaks HTTPS like every listener. The API
// listeners never serve /metrics: whoever reaches the API should not see its internals, and a scrape must not share the API's rate limits.
func startMetrics(ctx context.Context, addr string, metrics, api http.Handler, tlsConfig *tls.Config, logger *slog.Logger) (net.Addr, error) {
	listeners, err := listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	ln := listeners[0]
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("GET /livez", api)
	mux.Handle("GET /readyz", api)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsConfig,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	go func() {
		if err := serveOn(hs, ln, tlsConfig != nil); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", slog.Any("error", err))
		}
	}()
	logger.Info("metrics listening", slog.String("addr", ln.Addr().String()))
	return ln.Addr(), nil
}
