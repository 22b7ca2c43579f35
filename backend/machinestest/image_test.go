package machinestest

import (
	"os"
	"strings"
	"testing"
)

// TestCIBuildsTheTestImage: .ci/run builds the test image before the tests ask for it, with
// DebianImageOptions' flags into DebianImageName, under the lock DebianImage takes; a build with other options would be replaced
// at the tests' first use, minutes later, under the lock every such test waits on.
func TestCIBuildsTheTestImage(t *testing.T) {
	script, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	o := DebianImageOptions()
	want := "flock \"$RESELLER_IMAGE_CACHE/" + DebianImageName + ".lock\" \"$RESELLER_IMAGE_CACHE/resellerd\" image build \\\n\t--out \"$RESELLER_IMAGE_CACHE/" + DebianImageName + "\" --apps " + strings.Join(o.Apps, ",") +
		" --include " + strings.Join(o.Include, ",") + " "
	if !strings.Contains(string(script), want) {
		t.Fatalf(".ci/run does not build the test image as the tests do; want it to hold:\n%s", want)
	}
}
