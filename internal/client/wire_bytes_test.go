package client

import (
	"encoding/json"
	"testing"
)

// TestRequestBytes: the request bodies the client sends are exactly these bytes: optional
// fields left out when nil, apps always sent. Moving the shapes to the wire package changed
// none of them.
func TestRequestBytes(t *testing.T) {
	name, note, renew := "web", "", false
	for _, tt := range []struct {
		name string
		body any
		want string
	}{
		{"update, nothing", UpdateInstanceRequest{}, `{}`},
		{"update, all", UpdateInstanceRequest{Name: &name, Note: &note, Renew: &renew}, `{"name":"web","note":"","renew":false}`},
		{"install, no apps", InstallAppsRequest{}, `{"apps":null}`},
		{"install, inputs", InstallAppsRequest{Apps: []string{"wordpress"},
			AppInputs: map[string]map[string]string{"wordpress": {"title": "Blog"}}},
			`{"apps":["wordpress"],"app_inputs":{"wordpress":{"title":"Blog"}}}`},
		{"create snapshot, default name", CreateSnapshotRequest{}, `{}`},
		{"create snapshot, named", CreateSnapshotRequest{Name: &name}, `{"name":"web"}`},
		{"update snapshot, clear note", UpdateSnapshotRequest{Note: &note}, `{"note":""}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}
