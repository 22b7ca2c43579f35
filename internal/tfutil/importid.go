package tfutil

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ParseImportID parses the numeric id given to `terraform import` (or an import block). A value
// that is not a positive integer adds an error naming the expected form and returns false.
func ParseImportID(raw, what string, diags *diag.Diagnostics) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id <= 0 {
		diags.AddError("Invalid import ID",
			fmt.Sprintf("The import ID %q is not a valid %s id: it must be a positive integer, for example "+
				"`terraform import reseller_instance.web 123`.", raw, what))
		return 0, false
	}
	return id, true
}
