package acctest

import (
	"fmt"
	"os"
	"testing"
)

// EnvScope chooses the acceptance tests a run takes: "all" (the default: make test, make
// testacc, go test) or "cli", the tests whose outcome a CLI shapes. .ci/testacc-matrix runs
// every test on the oldest supported CLI (Terraform on PATH) and sets "cli" on the legs of the
// newer CLIs (Terraform 1.15.9, 1.16.0-rc2, OpenTofu), so CI stays within its time (README,
// "Tests"); MATRIX_SCOPE=all there runs every test on every CLI, as before a release.
const EnvScope = "RESELLER_ACC_SCOPE"

// SameOnEveryCLI marks a test whose outcome no CLI shapes: it checks what the provider and the
// backend decide (a price, a limit, a wait, a fault ridden out, a filter, an update the backend
// carries out, drift a read finds), through the plain plan, apply, refresh and destroy that
// every CLI drives alike over the same protocol. What a CLI does differently (schemas and plan modifiers, imports and identities, write-only and
// ephemeral values, tainting, list resources and queries, actions, provisioners, signals,
// validate, the documentation's examples) stays in the tests without this mark, which run on
// every CLI. Under RESELLER_ACC_SCOPE=cli the test is skipped, saying so.
func SameOnEveryCLI(t *testing.T) {
	t.Helper()
	skip, err := skipSameOnEveryCLI(os.Getenv(EnvScope))
	if err != nil {
		t.Fatal(err)
	}
	if skip {
		t.Skipf("%s=cli: this test checks what the provider and the backend decide, through steps every CLI drives alike; the matrix runs it on the oldest CLI (the PATH leg)", EnvScope)
	}
}

// skipSameOnEveryCLI tells whether a run of the scope skips the tests SameOnEveryCLI marks.
func skipSameOnEveryCLI(scope string) (bool, error) {
	switch scope {
	case "", "all":
		return false, nil
	case "cli":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: want all or cli", EnvScope, scope)
}
