// Package webhooktest gives tests a name resolver under their control, so they can show what
// the webhook dialer does with a name that resolves to an address of their choosing (such as
// loopback) without touching the machine's hosts file or DNS, and a receiver that counts the
// connections it gets. It is imported by test files only.
package webhooktest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// Resolver returns a resolver that answers every name with addr: an A record for an IPv4 addr,
// an AAAA record for an IPv6 one, and no record of the other type. It speaks DNS over an
// in-memory connection; no packet leaves the process.
func Resolver(addr netip.Addr) *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			go answer(server, addr)
			return client, nil
		},
	}
}

// answer serves the DNS queries of one connection (TCP framing: a net.Pipe is not a packet
// connection) until the client closes it.
func answer(c net.Conn, addr netip.Addr) {
	defer c.Close()
	for {
		var size [2]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		query := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, query); err != nil {
			return
		}
		reply := replyTo(query, addr)
		if reply == nil {
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(reply)))
		if _, err := c.Write(append(out, reply...)); err != nil {
			return
		}
	}
}

// replyTo builds the answer to query: its id and question, and one record when the question's
// type (A = 1, AAAA = 28) matches addr; nil when the query cannot be read.
func replyTo(query []byte, addr netip.Addr) []byte {
	end := 12
	for end < len(query) && query[end] != 0 {
		end += int(query[end]) + 1
	}
	end += 5 // the root label, then type and class
	if len(query) < 12 || end > len(query) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(query[end-4 : end-2])
	var rdata []byte
	switch {
	case qtype == 1 && addr.Is4():
		rdata = addr.AsSlice()
	case qtype == 28 && addr.Is6():
		rdata = addr.AsSlice()
	}
	reply := append([]byte{}, query[:2]...)
	reply = append(reply, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0) // response, recursion available, one question
	if rdata != nil {
		reply[7] = 1 // one answer
	}
	reply = append(reply, query[12:end]...)
	if rdata != nil {
		reply = append(reply, 0xc0, 0x0c) // the question's name
		reply = binary.BigEndian.AppendUint16(reply, qtype)
		reply = append(reply, 0, 1, 0, 0, 0, 60) // class IN, TTL 60 s
		reply = binary.BigEndian.AppendUint16(reply, uint16(len(rdata)))
		reply = append(reply, rdata...)
	}
	return reply
}

// HostPort replaces the host of rawURL (such as an httptest server's http://127.0.0.1:PORT)
// with name, keeping the port, so a request to it goes through name resolution.
func HostPort(rawURL, name string) string {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	hostport, path, _ := strings.Cut(rest, "/")
	_, port, _ := net.SplitHostPort(hostport)
	out := scheme + "://" + net.JoinHostPort(name, port)
	if path != "" {
		out += "/" + path
	}
	return out
}

// CountingServer starts a receiver that answers 200 (204 for plain HTTP) and counts the
// connections made to it, so a test can show that a refused attempt reached nothing; withTLS
// serves HTTPS. The server is closed when the test ends.
func CountingServer(t testing.TB, withTLS bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	conns := new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if withTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, conns
}
