package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// USD is a flag holding an exact amount of dollars, parsed without floats.
type USD struct{ Micros money.Micros }

func (f *USD) String() string { return f.Micros.String() }

func (f *USD) Set(s string) error {
	m, err := money.Parse(s)
	if err != nil {
		return err
	}
	f.Micros = m
	return nil
}

// CIDRList is a flag holding comma-separated address prefixes (CIDR notation).
type CIDRList []netip.Prefix

func (l *CIDRList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, p := range *l {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// Set replaces the list with the prefixes of s; an empty s is no prefix.
func (l *CIDRList) Set(s string) error {
	var out []netip.Prefix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return fmt.Errorf("%q is not an address range in CIDR notation (such as 10.20.0.0/16)", part)
		}
		out = append(out, p.Masked())
	}
	*l = out
	return nil
}

// Prefix is a flag holding one address range.
type Prefix netip.Prefix

func (f *Prefix) String() string {
	if p := netip.Prefix(*f); p.IsValid() {
		return p.String()
	}
	return ""
}

func (f *Prefix) Set(s string) error {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Errorf("%q is not a CIDR range such as 198.18.0.0/16", s)
	}
	*f = Prefix(p)
	return nil
}

// OptionalInt is a flag of a whole number, not negative, that knows whether it was given:
// V is nil until it is.
type OptionalInt struct{ V *int }

func (f *OptionalInt) String() string {
	if f.V == nil {
		return ""
	}
	return strconv.Itoa(*f.V)
}

func (f *OptionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < 0 {
		return errors.New("must not be negative")
	}
	f.V = &n
	return nil
}

// OptionalChoice is a string flag of fixed choices that knows whether it was given: V is nil
// until it is.
type OptionalChoice struct {
	Choices []string
	V       *string
}

func (f *OptionalChoice) String() string {
	if f.V == nil {
		return ""
	}
	return *f.V
}

func (f *OptionalChoice) Set(s string) error {
	for _, c := range f.Choices {
		if s == c {
			f.V = &s
			return nil
		}
	}
	return fmt.Errorf("must be one of %v", f.Choices)
}

var (
	_ flag.Value = (*USD)(nil)
	_ flag.Value = (*CIDRList)(nil)
	_ flag.Value = (*Prefix)(nil)
	_ flag.Value = (*OptionalInt)(nil)
	_ flag.Value = (*OptionalChoice)(nil)
)

// IDPaths is a flag holding comma-separated ID=PATH pairs, such as template ids and their
// images (--machines-image-for 3=/srv/debian12,1=/srv/noble).
type IDPaths map[int64]string

func (m *IDPaths) String() string {
	if m == nil || len(*m) == 0 {
		return ""
	}
	ids := make([]int64, 0, len(*m))
	for id := range *m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10) + "=" + (*m)[id]
	}
	return strings.Join(parts, ",")
}

// Set replaces the pairs with those of s; an empty s is none. An id given twice is refused.
func (m *IDPaths) Set(s string) error {
	out := IDPaths{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		idText, path, ok := strings.Cut(part, "=")
		id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
		if !ok || err != nil || id <= 0 || strings.TrimSpace(path) == "" {
			return fmt.Errorf("%q is not ID=PATH (such as 3=/srv/images/debian12)", part)
		}
		if _, dup := out[id]; dup {
			return fmt.Errorf("id %d is given twice", id)
		}
		out[id] = strings.TrimSpace(path)
	}
	*m = out
	return nil
}
