package tfutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// StringList converts a slice to a list of strings. A nil slice becomes an empty list, not null:
// the API marks these arrays as required, so "none" is the honest value.
func StringList(ctx context.Context, in []string) (types.List, diag.Diagnostics) {
	if in == nil {
		in = []string{}
	}
	return types.ListValueFrom(ctx, types.StringType, in)
}

// StringSet is StringList for sets.
func StringSet(ctx context.Context, in []string) (types.Set, diag.Diagnostics) {
	if in == nil {
		in = []string{}
	}
	return types.SetValueFrom(ctx, types.StringType, in)
}

// StringsFromSet returns the known, non-null elements of a set of strings. A null or unknown
// set yields nil.
func StringsFromSet(ctx context.Context, s types.Set) ([]string, diag.Diagnostics) {
	if s.IsNull() || s.IsUnknown() {
		return nil, nil
	}
	var out []string
	diags := s.ElementsAs(ctx, &out, false)
	return out, diags
}

// IsSet reports whether an attribute value was given in the configuration (not null and not
// unknown).
func IsSet(v attr.Value) bool {
	return v != nil && !v.IsNull() && !v.IsUnknown()
}
