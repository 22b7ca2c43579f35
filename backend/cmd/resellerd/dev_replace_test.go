package main

import (
	"net"
	"testing"
	"time"
)

// TestDevResetSurvivesClientsHangingUp: clients that send POST /_dev/reset and hang up 5 ms
// later, again and again, leave a working backend: the reset runs to its end whatever the
// client does. (A reset stopped by its client used to leave the closed backend in place, and the
// next API request faulted the process reading its unmapped wal-index: SIGSEGV.)
func TestDevResetSurvivesClientsHangingUp(t *testing.T) {
	d := startDevInProcess(t, "--deploy-delay", "0s")
	host := d.base[len("http://"):]
	for range 8 {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write([]byte("POST /_dev/reset HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 0\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		_ = conn.Close()
		d.call(t, "GET", "/api/v1/account", d.key, "").want(t, 200, "")
	}
	d.call(t, "POST", "/_dev/reset", "", "").want(t, 200, "")
	if b := d.balance(t); b != 1000 {
		t.Fatalf("balance after the resets %v, want the seed's 1000", b)
	}
}
