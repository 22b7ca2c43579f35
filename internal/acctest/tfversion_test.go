package acctest

import "testing"

// TestHasNewFeatureName: the suffix is read on the top-level test's name, so a subtest of a
// test named for the feature passes and a test named otherwise, or a subtest named for it under
// such a test, does not: -run '_terraform116$' selects top-level tests only.
func TestHasNewFeatureName(t *testing.T) {
	for name, want := range map[string]bool{
		"TestAccInstance_destroyFalse_terraform116":               true,
		"TestAccSnapshotAction_onFailureHalt_terraform116/step_1": true,
		"TestAccInstance_destroyFalse":                            false,
		"TestAccInstance_destroyFalse/x_terraform116":             false,
		"TestAccInstance_terraform116x":                           false,
	} {
		if got := hasNewFeatureName(name, Terraform116); got != want {
			t.Errorf("hasNewFeatureName(%q) = %v, want %v", name, got, want)
		}
	}
}
