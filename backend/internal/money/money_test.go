package money

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Micros
		want string
	}{
		{0, "0"},
		{12_500_000, "12.5"},
		{417, "0.000417"},
		{1, "0.000001"},
		{-417, "-0.000417"},
		{-3_000_000, "-3"},
		{USD(100), "100"},
		{1_234_567, "1.234567"},
		{math.MaxInt64, "9223372036854.775807"},
		{math.MinInt64, "-9223372036854.775808"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Fatalf("String(%d) = %q, want %q", int64(tt.in), got, tt.want)
			}
			b, err := json.Marshal(struct{ A Micros }{tt.in})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"A":` + tt.want + `}`; string(b) != want {
				t.Fatalf("json = %s, want %s", b, want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Micros
		wantErr bool
	}{
		{in: "50", want: USD(50)},
		{in: "12.5", want: 12_500_000},
		{in: "0.000417", want: 417},
		{in: "-0.000417", want: -417},
		{in: "0", want: 0},
		{in: "-0", want: 0},
		{in: "1.500000000", want: 1_500_000},
		{in: "1.5e-3", want: 1_500},
		{in: "2E2", want: USD(200)},
		{in: "1e+1", want: USD(10)},
		{in: "4.17e-4", want: 417},
		{in: "9223372036854.775807", want: math.MaxInt64},
		{in: "0.0000001", wantErr: true},
		{in: "1.0000005", wantErr: true},
		{in: "1e-7", wantErr: true},
		{in: "9223372036854.775808", wantErr: true},
		{in: "1e20", wantErr: true},
		{in: "", wantErr: true},
		{in: "-", wantErr: true},
		{in: ".5", wantErr: true},
		{in: "5.", wantErr: true},
		{in: "+5", wantErr: true},
		{in: "1,5", wantErr: true},
		{in: "abc", wantErr: true},
		{in: "1e", wantErr: true},
		{in: "NaN", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Parse(%q) = %d, %v; want ErrInvalid", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		A Micros
		B Micros
		C *Micros
	}
	if err := json.Unmarshal([]byte(`{"A": 0.1, "B": "2.25", "C": null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != 100_000 || v.B != 2_250_000 || v.C != nil {
		t.Fatalf("got %+v, want A=100000 B=2250000 C=nil", v)
	}
	if err := json.Unmarshal([]byte(`{"A": 0.0000001}`), &v); !errors.Is(err, ErrInvalid) {
		t.Fatalf("7 fractional digits: got %v, want ErrInvalid", err)
	}
	// Round trip: what we write, we read back unchanged.
	for _, m := range []Micros{0, 1, 417, 12_500_000, -99_999_999} {
		b, _ := json.Marshal(m)
		var back Micros
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Fatalf("round trip %d: got %d, %v", m, back, err)
		}
	}
}

// TestMarshalJSONAllocatesOnce holds the hand-made formatting: an amount's JSON costs one
// allocation, the bytes returned (answers marshal a few amounts each).
func TestMarshalJSONAllocatesOnce(t *testing.T) {
	m := Micros(-1_234_500)
	if n := testing.AllocsPerRun(100, func() { marshalled, _ = m.MarshalJSON() }); n != 1 {
		t.Fatalf("MarshalJSON allocates %v times, want 1", n)
	}
}

// marshalled keeps what TestMarshalJSONAllocatesOnce marshals, so it escapes as in an answer.
var marshalled []byte
