// Command webhook-receiver is an example endpoint for the Reseller Server Service's webhook: it
// verifies every delivery's signature with the webhook package, drops duplicate deliveries (a
// retry carries the same X-Service-Delivery), prints each verified event as one JSON line, and
// answers 2xx at once so the service does not retry.
//
//	WEBHOOK_SECRET=... go run ./examples/webhook-receiver --listen 127.0.0.1:9090
//
// Register it with `resource "reseller_webhook"` (url "http://127.0.0.1:9090/hook" needs
// resellerd's --allow-http-webhooks; production endpoints must be HTTPS).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/reseller/terraform-provider-reseller/webhook"
)

func main() {
	if err := run(); err != nil {
		log.Fatalf("webhook-receiver: %v", err)
	}
}

// run serves until SIGINT or SIGTERM.
func run() error {
	listen := flag.String("listen", "127.0.0.1:9090", "address to listen on")
	path := flag.String("path", "/hook", "URL path of the endpoint")
	flag.Parse()
	secret := os.Getenv("WEBHOOK_SECRET")
	if len(secret) < 16 {
		return errors.New("set WEBHOOK_SECRET to the webhook's secret (16 to 256 characters)")
	}

	mux := http.NewServeMux()
	mux.Handle("POST "+*path, newReceiver(webhook.Verifier{Secret: secret}, os.Stdout))
	srv := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("webhook-receiver: listening on http://%s%s", *listen, *path)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// maxRemembered bounds the set of delivery ids kept for dropping duplicates.
const maxRemembered = 10000

// receiver verifies deliveries and prints each new event once.
type receiver struct {
	verifier webhook.Verifier
	out      io.Writer

	mu   sync.Mutex
	seen map[string]bool
	fifo []string // delivery ids in arrival order, to forget the oldest
}

func newReceiver(v webhook.Verifier, out io.Writer) *receiver {
	return &receiver{verifier: v, out: out, seen: map[string]bool{}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.verifier.Parse(r)
	if err != nil {
		log.Printf("webhook-receiver: refused a delivery: %v", err)
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	delivery := r.Header.Get(webhook.HeaderDelivery)
	if rc.firstTime(delivery) {
		rc.print(delivery, ev)
	}
	w.WriteHeader(http.StatusNoContent)
}

// firstTime records the delivery id and reports whether it is new.
func (rc *receiver) firstTime(delivery string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if delivery == "" {
		return true
	}
	if rc.seen[delivery] {
		return false
	}
	rc.seen[delivery] = true
	rc.fifo = append(rc.fifo, delivery)
	if len(rc.fifo) > maxRemembered {
		delete(rc.seen, rc.fifo[0])
		rc.fifo = rc.fifo[1:]
	}
	return true
}

func (rc *receiver) print(delivery string, ev *webhook.Event) {
	line, _ := json.Marshal(map[string]any{
		"delivery": delivery, "id": ev.ID, "event": ev.Event, "created_at": ev.CreatedAt, "data": ev.Data,
	})
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fmt.Fprintf(rc.out, "verified %s\n", line)
}
