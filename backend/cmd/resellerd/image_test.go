package main

import (
	"strings"
	"testing"
)

// TestImageBuildUsage: `image build` without --out, or with an app it knows no packages for,
// exits 2 naming the mistake; --help lists its flags with their variables.
func TestImageBuildUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"image", "build"}, "--out is required"},
		{[]string{"image", "build", "--out", t.TempDir() + "/img", "--apps", "gitlab"}, `"gitlab"`},
		{[]string{"image"}, "no subcommand"},
	} {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), tt.args, &stdout, &stderr, noEnv); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
	out := help(t, "image", "build", "--help")
	for _, w := range []string{"--out", "--suite", "default: bookworm   variable: RESELLER_SUITE", "--include", "--apps", "--mirror"} {
		if !strings.Contains(out, w) {
			t.Errorf("image build --help lacks %q:\n%s", w, out)
		}
	}
}
