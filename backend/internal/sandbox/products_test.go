package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/datacenter"
)

// TestInstallScriptsParse: every app's install script is valid shell (sh -n), and the apps
// with a real product try it first and fall back to the stand-in, saying which in the log.
func TestInstallScriptsParse(t *testing.T) {
	t.Parallel()
	cat := catalog.New()
	for _, app := range cat.Apps() {
		script, _, err := installScript(app, datacenter.AppJob{AppID: app.ID, Host: "h"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("/bin/sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("%s: sh -n: %v: %s\n%s", app.ID, err, out, script)
		}
		_, real := productOf(app.ID)
		for _, want := range []string{"a stand-in, not the real product"} {
			if !strings.Contains(script, want) {
				t.Errorf("%s: script lacks %q", app.ID, want)
			}
		}
		if real != strings.Contains(script, "the real product'") {
			t.Errorf("%s: real product %v, but the script says otherwise:\n%s", app.ID, real, script)
		}
	}
}

// TestSQLString: inputs become SQL (and PHP) literals and identifiers no value can break out of.
func TestSQLString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ fn, in, want string }{
		{"sqlstr", `a'b\c`, `'a\'b\\c'`},
		{"sqlstr", `'; DROP DATABASE x; --`, `'\'; DROP DATABASE x; --'`},
		{"sqlid", "sh`op", "`sh``op`"},
	} {
		out, err := exec.Command("/bin/sh", "-c", sqlString+tt.fn+` "$1"`, "sh", tt.in).Output()
		if err != nil || string(out) != tt.want {
			t.Errorf("%s %q = %q (%v), want %q", tt.fn, tt.in, out, err, tt.want)
		}
	}
}
