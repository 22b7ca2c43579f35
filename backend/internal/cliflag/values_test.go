package cliflag

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

func TestUSD(t *testing.T) {
	var f USD
	if err := f.Set("12.345678"); err != nil || f.Micros != 12_345_678 || f.String() != "12.345678" {
		t.Errorf("Set(12.345678): %v, %d micros, %q", err, f.Micros, f.String())
	}
	if err := f.Set("ten"); err == nil || f.Micros != 12_345_678 {
		t.Errorf("Set(ten): err %v, %d micros: want an error and the amount unchanged", err, f.Micros)
	}
	if (&USD{Micros: money.USD(100)}).String() != "100" {
		t.Error("default of 100 USD does not show as 100")
	}
}

func TestCIDRList(t *testing.T) {
	var l CIDRList
	if err := l.Set(" 10.20.1.0/16, ,fd00:1::5/64"); err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "10.20.0.0/16,fd00:1::/64" {
		t.Errorf("list = %q, want masked prefixes, blanks skipped", got)
	}
	if err := l.Set(""); err != nil || len(l) != 0 {
		t.Errorf("empty: %v, %v: want no prefix", err, l)
	}
	if err := l.Set("10.0.0.0/8,10.1.2.3"); err == nil || err.Error() != `"10.1.2.3" is not an address range in CIDR notation (such as 10.20.0.0/16)` {
		t.Errorf("a bare address: err = %v", err)
	}
	if (*CIDRList)(nil).String() != "" {
		t.Error("nil list does not show empty")
	}
}

func TestPrefix(t *testing.T) {
	var p Prefix
	if p.String() != "" {
		t.Errorf("unset prefix shows %q", p.String())
	}
	if err := p.Set("198.18.0.0/16"); err != nil || p.String() != "198.18.0.0/16" {
		t.Errorf("Set: %v, %q", err, p.String())
	}
	if err := p.Set("198.18.0.0"); err == nil {
		t.Error("a bare address is accepted")
	}
}

func TestOptionalInt(t *testing.T) {
	var f OptionalInt
	if f.V != nil || f.String() != "" {
		t.Fatal("an OptionalInt not given has a value")
	}
	if err := f.Set("0"); err != nil || f.V == nil || *f.V != 0 || f.String() != "0" {
		t.Errorf("Set(0): %v, %v: want 0, given", err, f.V)
	}
	for in, want := range map[string]string{"-1": "must not be negative", "2.5": "not a whole number"} {
		if err := (&OptionalInt{}).Set(in); err == nil || err.Error() != want {
			t.Errorf("Set(%s): err = %v, want %q", in, err, want)
		}
	}
}

func TestOptionalChoice(t *testing.T) {
	f := OptionalChoice{Choices: []string{"on", "off"}}
	if f.V != nil || f.String() != "" {
		t.Fatal("an OptionalChoice not given has a value")
	}
	if err := f.Set("off"); err != nil || f.V == nil || *f.V != "off" {
		t.Errorf("Set(off): %v, %v", err, f.V)
	}
	if err := f.Set("maybe"); err == nil || err.Error() != "must be one of [on off]" || *f.V != "off" {
		t.Errorf("Set(maybe): err = %v, value %q: want refused, value kept", err, *f.V)
	}
}

func TestIDPaths(t *testing.T) {
	var m IDPaths
	if err := m.Set(" 3=/srv/debian12 ,1=/srv/noble,"); err != nil {
		t.Fatal(err)
	}
	if got := m.String(); got != "1=/srv/noble,3=/srv/debian12" {
		t.Errorf("String() = %q, want the pairs sorted by id", got)
	}
	for _, bad := range []string{"debian=/srv/x", "3", "3=", "0=/x", "3=/a,3=/b"} {
		if err := m.Set(bad); err == nil {
			t.Errorf("Set(%q): no error, want one", bad)
		}
	}
}
