package migrations

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []int
		wantErr bool
	}{
		{"ordered by version", fstest.MapFS{
			"d/0010_b.sql": {Data: []byte("B")}, "d/0002_a.sql": {Data: []byte("A")}, "d/README": {Data: []byte("x")},
		}, []int{2, 10}, false},
		{"duplicate version", fstest.MapFS{"d/0001_a.sql": {}, "d/1_b.sql": {}}, nil, true},
		{"no version", fstest.MapFS{"d/init.sql": {}}, nil, true},
		{"zero version", fstest.MapFS{"d/0000_x.sql": {}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load(tt.files, "d")
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("got %v, %v; want versions %v", got, err, tt.want)
			}
			for i, m := range got {
				if m.Version != tt.want[i] {
					t.Fatalf("got version %d at %d, want %d", m.Version, i, tt.want[i])
				}
			}
		})
	}
	if ms, err := SQLite(); err != nil || len(ms) == 0 || ms[0].Version != 1 {
		t.Fatalf("embedded sqlite migrations: %v, %v", ms, err)
	}
}

// TestDialectsInStep keeps the dialects at the same versions under the same names, so a
// version number means one schema whichever database holds it.
func TestDialectsInStep(t *testing.T) {
	t.Parallel()
	lite, err := SQLite()
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Postgres()
	if err != nil {
		t.Fatal(err)
	}
	if len(lite) != len(pg) {
		t.Fatalf("got %d sqlite and %d postgres migrations, want as many of each", len(lite), len(pg))
	}
	for i := range lite {
		if lite[i].Version != pg[i].Version || lite[i].Name != pg[i].Name {
			t.Errorf("migration %d: sqlite %s, postgres %s; want the same version and name", i, lite[i].Name, pg[i].Name)
		}
	}
}
