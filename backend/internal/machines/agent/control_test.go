package agent

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, pw := range []string{"s3cret", long + "a"} {
		h, err := HashPassword(pw)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h, pw) {
			t.Fatal("the hash contains the password")
		}
		if !CheckPassword(h, pw) {
			t.Errorf("CheckPassword(hash of %d bytes, same) = false", len(pw))
		}
	}
	h, err := HashPassword(long + "a")
	if err != nil {
		t.Fatal(err)
	}
	if CheckPassword(h, long+"b") {
		t.Error("two passwords differing past byte 72 check as one")
	}
	if CheckPassword(h, "") || CheckPassword("not a hash", long+"a") {
		t.Error("an empty password or a broken hash checks")
	}
	if h2, _ := HashPassword(long + "a"); h2 == h {
		t.Error("two hashes of one password are equal (no salt)")
	}
}
