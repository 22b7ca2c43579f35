package service

import (
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/delivery"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

func TestSnapshotHourly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perGBMonth money.Micros
		sizeGB     int
		want       money.Micros
	}{
		{20_000, 10, 274},   // 273.97 rounds up
		{50_000, 16, 1_096}, // 1095.89
		{20_000, 1, 27},     // 27.397 rounds down
		{730, 1, 1},         // exact
		{365, 1, 1},         // 0.5 rounds half up
		{364, 1, 0},         // 0.4986 rounds down
		{1_000_000, 730, 1_000_000},
		{0, 100, 0},
	}
	for _, tt := range tests {
		if got := snapshotHourly(tt.perGBMonth, tt.sizeGB); got != tt.want {
			t.Errorf("snapshotHourly(%v, %d) = %v, want %v", tt.perGBMonth, tt.sizeGB, got, tt.want)
		}
	}
}

func TestCrossedThreshold(t *testing.T) {
	t.Parallel()
	h := func(v float64) *float64 { return &v }
	tests := []struct {
		hours *float64
		want  int
	}{
		{nil, 0}, {h(100), 0}, {h(24.01), 0}, {h(24), 24}, {h(12.5), 24}, {h(12), 12}, {h(6.99), 12},
		{h(6), 6}, {h(2.01), 6}, {h(2), 2}, {h(1.5), 2}, {h(1), 1}, {h(0.3), 1}, {h(0), 1},
	}
	for _, tt := range tests {
		if got := crossedThreshold(tt.hours); got != tt.want {
			t.Errorf("crossedThreshold(%v) = %d, want %d", tt.hours, got, tt.want)
		}
	}
	for _, tt := range []struct {
		level, announced int
		want             bool
	}{{24, 0, true}, {12, 24, true}, {24, 24, false}, {24, 12, false}, {0, 12, false}, {1, 2, true}} {
		if got := lower(tt.level, tt.announced); got != tt.want {
			t.Errorf("lower(%d, %d) = %v, want %v", tt.level, tt.announced, got, tt.want)
		}
	}
}

func TestDefaultSnapshotName(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 1, 10, 4, 5, 0, time.UTC)
	if got := defaultSnapshotName("web-1", at); got != "web-1 2025-06-01 10:04:05" {
		t.Errorf("got %q", got)
	}
	long := defaultSnapshotName("ابجدهوزحطیکلمنسعفصقرشتثخذضظغ-ابجدهوزحطیکلمنسعفصقرشتثخذضظغ", at)
	if n := len([]rune(long)); n != maxName {
		t.Errorf("long name %q has %d characters, want %d", long, n, maxName)
	}
	if err := checkName(long); err != nil {
		t.Errorf("the default name is not a valid name: %v", err)
	}
}

func TestCheckWebhookURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url       string
		allowHTTP bool
		ok        bool
	}{
		{"https://hooks.example.com/x", false, true},
		{"HTTPS://hooks.example.com/x", false, true},
		{"https://[2001:4860:4860::8888]:8443/x", false, true},
		{"https://[2001:db8::1]:8443/x", false, false}, // documentation space: not globally reachable
		{"http://127.0.0.1/x", false, false},
		{"http://127.0.0.1/x", true, true},
		{"http://127.0.0.2:8080/x", true, true}, // all of 127.0.0.0/8 is loopback
		{"http://LOCALHOST/x", true, true},
		{"http://[::1]/x", true, true},
		{"http://localhost.example.com/x", true, false},
		{"http://192.168.1.1/x", true, false},
		{"https://", false, false},
		{"https:///path", false, false},
		{"mailto:a@example.com", false, false},
	}
	for _, tt := range tests {
		s := &Service{allowHTTP: tt.allowHTTP, targets: delivery.Targets{AllowLoopback: tt.allowHTTP}}
		if err := s.checkWebhookURL(tt.url); (err == nil) != tt.ok {
			t.Errorf("checkWebhookURL(%q, %v) = %v, want ok %v", tt.url, tt.allowHTTP, err, tt.ok)
		}
	}
}
