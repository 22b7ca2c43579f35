package datacenter

import (
	"strconv"
	"strings"
)

// A machine ref is opaque to the service, which only stores it and hands it back; the bundled
// datacenters (sim and sandbox over it) name a machine after the order it was built for, so a
// ref says, without a lookup, which order's machine it is and which address it gets. The form
// is made and read here only.

// refPrefix begins every machine ref of the bundled datacenters: "vm-<order id>".
const refPrefix = "vm-"

// MachineRef is the ref of the machine built for order orderID.
func MachineRef(orderID int64) string { return refPrefix + strconv.FormatInt(orderID, 10) }

// OrderOfRef is the order id a machine ref names; ok is false when ref is not a ref MachineRef
// makes (another form, a sign, leading zeros, an id below 1).
func OrderOfRef(ref string) (orderID int64, ok bool) {
	digits, found := strings.CutPrefix(ref, refPrefix)
	if !found {
		return 0, false
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || id < 1 || MachineRef(id) != ref {
		return 0, false
	}
	return id, true
}
