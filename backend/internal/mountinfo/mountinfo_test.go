package mountinfo

import "testing"

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/sys/fs/cgroup/a\040b`: "/sys/fs/cgroup/a b",
		`/a\040b\134c`:          `/a b\c`,
		`/tab\011nl\012`:        "/tab\tnl\n",
		`/kept\04`:              `/kept\04`, // too short to be an escape
		`/kept\999`:             `/kept\999`,
		`/plain`:                "/plain",
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
