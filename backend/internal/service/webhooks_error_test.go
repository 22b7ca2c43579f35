package service

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// TestDeliveryErrorHidesTheURLsQuery: an attempt to a receiver that refuses the connection, or
// to an address the targets refuse, fails with the client's *url.Error, whose text names the
// whole URL; the delivery's last_error (what the database and /_dev/overview show) names its
// scheme, host and path, not its query nor its user information.
func TestDeliveryErrorHidesTheURLsQuery(t *testing.T) {
	t.Parallel()
	for name, loopback := range map[string]bool{"connection refused": true, "target refused": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkDeliveryError(t, delivery.Targets{AllowLoopback: loopback})
		})
	}
}

func checkDeliveryError(t *testing.T, targets delivery.Targets) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nobody listens there now: the attempt is refused
	s := &Service{clock: fixedClock(time.Now()), sender: delivery.NewHTTPSender(targets, nil), log: slog.New(slog.DiscardHandler)}
	hook := store.Webhook{AccountID: 1, URL: "http://alice:pw-1@" + addr + "/hooks/in?token=tok-1#frag-1", Secret: "whsec"}
	d := s.attemptOnce(context.Background(), hook, store.Delivery{ID: "d-1", AccountID: 1, Event: "test", Body: []byte(`{}`)})
	if d.LastError == "" {
		t.Fatalf("the attempt to a closed port succeeded: %+v", d)
	}
	for _, leak := range []string{"tok-1", "alice", "pw-1", "frag-1"} {
		if strings.Contains(d.LastError, leak) {
			t.Errorf("last_error %q shows %q", d.LastError, leak)
		}
	}
	if !strings.Contains(d.LastError, "http://"+addr+"/hooks/in") {
		t.Errorf("last_error %q does not name the receiver http://%s/hooks/in", d.LastError, addr)
	}
}
