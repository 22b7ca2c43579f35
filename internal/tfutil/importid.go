package tfutil

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ParseImportID parses the numeric id given to `terraform import` (or an import block) of the
// resource type typeName. A value that is not a positive integer adds an error naming the
// expected form and returns false.
func ParseImportID(raw, typeName string, diags *diag.Diagnostics) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id <= 0 {
		diags.AddError("Invalid import ID",
			fmt.Sprintf("The import ID %q is not a valid %s id: it must be a positive integer, for example "+
				"`terraform import %s.example 123`.", raw, typeName, typeName))
		return 0, false
	}
	return id, true
}
