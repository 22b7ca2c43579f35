package acctest

import "testing"

// TestSkipSameOnEveryCLI: only the cli scope skips the marked tests; an unknown scope is an
// error, never a silent full or empty run.
func TestSkipSameOnEveryCLI(t *testing.T) {
	for _, tc := range []struct {
		scope   string
		skip    bool
		wantErr bool
	}{
		{scope: ""}, {scope: "all"}, {scope: "cli", skip: true}, {scope: "CLI", wantErr: true}, {scope: "none", wantErr: true},
	} {
		skip, err := skipSameOnEveryCLI(tc.scope)
		if skip != tc.skip || (err != nil) != tc.wantErr {
			t.Errorf("scope %q: skip %v, error %v; want skip %v, an error %v", tc.scope, skip, err, tc.skip, tc.wantErr)
		}
	}
}
