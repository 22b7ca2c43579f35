package instance

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
)

// TestClonePrice prices a clone as the API charges it: the hour and the creation fee, the
// configured features (or, with none configured, the snapshot's), and those its OS forces,
// summed in micro-USD so 0.1 + 0.2 is 0.3.
func TestClonePrice(t *testing.T) {
	p := &client.Plan{
		Prices: []client.Price{{Term: "hourly", Price: 0.1}}, CreationFee: 0.2,
		Features: []client.Feature{
			{ID: 1, Name: "IPv4", Price: 0.01, RequiredForOSTypes: []string{"windows"}},
			{ID: 2, Name: "Backups", Price: 0.02},
			{ID: 3, Name: "Monitoring", Price: 0.04},
		},
	}
	linux, windows := "linux", "windows"
	tests := []struct {
		name        string
		osType      *string
		snapFeature []string
		configured  []string
		set         bool
		want        float64
	}{
		{"bare", &linux, nil, nil, false, 0.3},
		{"snapshot's features carried over", &linux, []string{"Backups"}, nil, false, 0.32},
		{"configured features win", &linux, []string{"Backups"}, []string{"3"}, true, 0.34},
		{"configured empty", &linux, []string{"Backups"}, []string{}, true, 0.3},
		{"forced by the OS", &windows, nil, []string{"2"}, true, 0.33},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := clonePrice(p, &client.Snapshot{OSType: tc.osType, Features: tc.snapFeature}, tc.configured, tc.set)
			if !ok || got != tc.want {
				t.Errorf("got %v (%v), want %v", got, ok, tc.want)
			}
		})
	}
	if _, ok := clonePrice(&client.Plan{}, &client.Snapshot{}, nil, false); ok {
		t.Error("plan without an hourly price: got a price, want none")
	}
}
