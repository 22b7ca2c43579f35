package service

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

func TestProrate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		amount money.Micros
		left   time.Duration
		want   money.Micros
	}{
		{4_000, 45 * time.Minute, 3_000},
		{4_000, 1193 * time.Second, 1_326}, // 1325.56 rounds up
		{4_000, 450 * time.Millisecond, 1}, // 0.5 rounds half up
		{4_000, 449 * time.Millisecond, 0},
		{4_000, time.Hour, 4_000},
		{4_000, 2 * time.Hour, 4_000}, // never more than an hour
		{4_000, 0, 0},
		{4_000, -time.Minute, 0}, // an hour already due
		{-4_000, time.Hour, 0},   // a smaller plan refunds nothing
		{1_000_000_000, time.Hour - time.Millisecond, 999_999_722},
	}
	for _, tt := range tests {
		if got := prorate(tt.amount, tt.left); got != tt.want {
			t.Errorf("prorate(%v, %v) = %v, want %v", tt.amount, tt.left, got, tt.want)
		}
	}
}

func TestCanonicalHash(t *testing.T) {
	t.Parallel()
	base, err := canonicalHash([]byte(`{"server_id": 101, "template_id": 1, "term": "hourly"}`))
	if err != nil {
		t.Fatal(err)
	}
	same := []string{
		`{"term":"hourly","template_id":1,"server_id":101}`,
		"{\n\t\"server_id\" : 101 ,\"template_id\":1, \"term\":\"hourly\", \"hostname\": null}",
		`{"server_id": 101, "template_id": 1, "term": "hourly", "apps": [], "app_inputs": {}}`,
	}
	for _, body := range same {
		if got, _ := canonicalHash([]byte(body)); got != base {
			t.Errorf("%s hashes differently from the same request", body)
		}
	}
	different := []string{
		`{"server_id": 102, "template_id": 1, "term": "hourly"}`,
		`{"server_id": 101, "template_id": 1, "term": "hourly", "hostname": "a"}`,
		`{"server_id": 101, "template_id": 1, "term": "hourly", "apps": ["docker"]}`,
		`{"server_id": 101, "template_id": 1.0, "term": "hourly"}`,
		`{"server_id": 101, "template_id": 1, "term": "hourly", "app_inputs": {"x": {"a": null}}}`,
	}
	for _, body := range different {
		if got, _ := canonicalHash([]byte(body)); got == base {
			t.Errorf("%s hashes like another request", body)
		}
	}
	if _, err := canonicalHash([]byte(`{`)); err == nil {
		t.Error("invalid JSON: got nil error")
	}
}

func TestValidHostname(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]bool{
		"web": true, "web-1.example.com": true, "A1": true, "1": true, strings.Repeat("a", 63): true,
		"": false, "-web": false, "web-": false, "web..com": false, ".web": false, "web_1": false, "wéb": false,
		strings.Repeat("a", 64): false, "a b": false,
	} {
		if got := ValidHostname(h); got != want {
			t.Errorf("ValidHostname(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestCheckInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, value string
		ok          bool
	}{
		{catalog.KindEmail, "a@example.com", true}, {catalog.KindEmail, "nobody", false}, {catalog.KindEmail, "a@b", false},
		{catalog.KindEmail, "Name <a@example.com>", false},
		{catalog.KindNumber, "3", true}, {catalog.KindNumber, "-1", false}, {catalog.KindNumber, "two", false},
		{catalog.KindBoolean, "true", true}, {catalog.KindBoolean, "yes", false},
		{catalog.KindDomain, "blog.example.org", true}, {catalog.KindDomain, "localhost", false},
		{catalog.KindPassword, "longenough", true}, {catalog.KindPassword, "short", false},
		{catalog.KindText, strings.Repeat("x", 255), true}, {catalog.KindText, strings.Repeat("x", 256), false},
		{catalog.KindNumber, "", true}, // empty takes the default
	}
	for _, tt := range tests {
		msg := checkInput(catalog.AppInput{Kind: tt.kind}, tt.value)
		if (msg == "") != tt.ok {
			t.Errorf("checkInput(%s, %q) = %q, want ok %v", tt.kind, tt.value, msg, tt.ok)
		}
	}
}

func TestHoursUntilZero(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		available, burn money.Micros
		want            float64
	}{
		{988_000, 12_000, 82.33}, {988_000, 4_000, 247}, {0, 4_000, 0}, {-5, 4_000, 0}, {1, 3, 0.33},
	} {
		if got := hoursUntilZero(tt.available, tt.burn); got != tt.want {
			t.Errorf("hoursUntilZero(%v, %v) = %v, want %v", tt.available, tt.burn, got, tt.want)
		}
	}
}

func TestCycleStart(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	created := now.Add(-31 * 24 * time.Hour)
	if got := cycleStart(created, now); !got.Equal(created.Add(30 * 24 * time.Hour)) {
		t.Errorf("cycle start = %v", got)
	}
}

func TestAppendLog(t *testing.T) {
	t.Parallel()
	tail := ""
	for i := range 25 {
		tail = appendLog(tail, "line "+strings.Repeat("x", i))
	}
	lines := strings.Split(tail, "\n")
	if len(lines) != logTailLines || lines[0] != "line "+strings.Repeat("x", 5) {
		t.Fatalf("kept %d lines starting %q", len(lines), lines[0])
	}
}

func TestInflight(t *testing.T) {
	t.Parallel()
	f := newInflight()
	release, ok := f.acquire(1, "k")
	if !ok {
		t.Fatal("first acquire refused")
	}
	if _, ok := f.acquire(1, "k"); ok {
		t.Fatal("second acquire of a key in progress allowed")
	}
	if _, ok := f.acquire(2, "k"); !ok {
		t.Fatal("another account's key is separate")
	}
	release()
	if _, ok := f.acquire(1, "k"); !ok {
		t.Fatal("acquire after release refused")
	}
}

// TestAppendLogCapsLines: a line over logLineMax bytes is cut, once, with a marker; shorter
// lines and lines already in the tail are kept as they are.
func TestAppendLogCapsLines(t *testing.T) {
	t.Parallel()
	tail := appendLog("", "short\n"+strings.Repeat("x", 1<<20))
	lines := strings.Split(tail, "\n")
	if len(lines) != 2 || lines[0] != "short" {
		t.Fatalf("got lines %.80q, want short and the cut line", lines)
	}
	if want := strings.Repeat("x", logLineMax) + fmt.Sprintf("… [%d bytes cut]", 1<<20-logLineMax); lines[1] != want {
		t.Errorf("got the long line as %d bytes ending %q, want %d bytes", len(lines[1]), lines[1][logLineMax:], len(want))
	}
	if again := appendLog(tail, "next"); !strings.HasPrefix(again, tail+"\n") {
		t.Errorf("a cut line was changed by the next append")
	}
}
