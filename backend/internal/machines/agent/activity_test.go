package agent

import (
	"net"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// TestCollectingOffWhileNothingRuns: the agent collects with its start's settings while its boot,
// a connection or a script runs, and turns collecting off when the last of them ends, a
// connection counting from its accept to its first Close.
func TestCollectingOffWhileNothingRuns(t *testing.T) {
	start := machineinit.CurrentGC()
	t.Cleanup(func() { machineinit.Busy(start) })
	on := func(what string, want bool) {
		t.Helper()
		if got := machineinit.CurrentGC().Percent >= 0; got != want {
			t.Fatalf("%s: collecting on %v, want %v", what, got, want)
		}
	}
	act := newActivity()
	on("booting", true)
	act.end()
	on("ready, nothing running", false)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	counted := act.counted(ln)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conn, err := counted.Accept()
	if err != nil {
		t.Fatal(err)
	}
	on("a connection open", true)
	act.begin() // a script
	_ = conn.Close()
	_ = conn.Close() // a second Close counts nothing
	on("the connection closed twice, a script running", true)
	act.end()
	on("the script over", false)
	if act.n != 0 {
		t.Fatalf("count %d with nothing running, want 0", act.n)
	}
}
