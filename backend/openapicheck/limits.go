package openapicheck

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Limit is a bound of a property of a component schema that a Go constant decides: the
// document must state it, with the constant's value.
type Limit struct {
	// Schema and Property name the property ("WebhookRequest", "secret").
	Schema, Property string
	// Keyword is the bound: maxLength, minLength, maxItems, minItems, minimum or maximum.
	Keyword string
	// Want is the Go constant the bound comes from.
	Want float64
}

// String names the limit in a difference.
func (l Limit) String() string {
	return fmt.Sprintf("%s.%s %s", l.Schema, l.Property, l.Keyword)
}

// Limits returns nil when the document states every limit with its Go value, and otherwise one
// error listing each one it leaves out or states with another value; a test that lists the Go
// constants so fails when either side changes alone.
func (c *Checker) Limits(limits []Limit) error {
	var diffs []string
	for _, l := range limits {
		got, err := c.limit(l)
		switch {
		case err != nil:
			diffs = append(diffs, err.Error())
		case got == nil:
			diffs = append(diffs, fmt.Sprintf("%s: the document states none, Go says %v", l, l.Want))
		case *got != l.Want:
			diffs = append(diffs, fmt.Sprintf("%s: the document says %v, Go says %v", l, *got, l.Want))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("limits that differ from their Go constants:\n  %s", strings.Join(diffs, "\n  "))
}

// limit reads the bound l names; nil when the document does not state it.
func (c *Checker) limit(l Limit) (*float64, error) {
	ref := c.doc.Components.Schemas[l.Schema]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("%s: no schema %q in the document", l, l.Schema)
	}
	prop, ok := flatten(ref.Value).properties[l.Property]
	if !ok {
		return nil, fmt.Errorf("%s: schema %s has no property %q", l, l.Schema, l.Property)
	}
	read, ok := reader(l.Keyword)
	if !ok {
		return nil, fmt.Errorf("%s: unknown keyword %q", l, l.Keyword)
	}
	return bound(prop, read), nil
}

// reader returns how to read keyword from one schema: nil where it states none (a zero
// minLength or minItems is none); false for a keyword it does not know.
func reader(keyword string) (func(*openapi3.Schema) *float64, bool) {
	switch keyword {
	case "maxLength":
		return func(s *openapi3.Schema) *float64 { return count(s.MaxLength) }, true
	case "minLength":
		return func(s *openapi3.Schema) *float64 { return count(&s.MinLength) }, true
	case "maxItems":
		return func(s *openapi3.Schema) *float64 { return count(s.MaxItems) }, true
	case "minItems":
		return func(s *openapi3.Schema) *float64 { return count(&s.MinItems) }, true
	case "minimum":
		return func(s *openapi3.Schema) *float64 { return s.Min }, true
	case "maximum":
		return func(s *openapi3.Schema) *float64 { return s.Max }, true
	}
	return nil, false
}

// bound is the first value read finds in s or, depth first, its allOf members, however the
// document spells the property.
func bound(s *openapi3.Schema, read func(*openapi3.Schema) *float64) *float64 {
	if v := read(s); v != nil {
		return v
	}
	for _, m := range s.AllOf {
		if v := bound(m.Value, read); v != nil {
			return v
		}
	}
	return nil
}

// count turns a length bound into the float a Limit compares; zero is no bound.
func count(n *uint64) *float64 {
	if n == nil || *n == 0 {
		return nil
	}
	f := float64(*n)
	return &f
}
