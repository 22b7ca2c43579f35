package provider

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository, relative to this package.
const repoRoot = "../.."

// The checks below hold every type the provider registers (RegisteredTypes, read from the
// provider, never a list of our own) to the edits a new type takes besides its code, so that
// forgetting one fails here rather than in review:
//
//   - TestRegisteredTypesHaveExamplesAndDocs: its example files under examples/ and its page
//     under docs/ (`make generate`); and no example folder or page for a type not registered;
//   - TestRegisteredTypesHaveAcceptanceTests: a TestAcc… function under internal/ whose config
//     uses the type, and, for a resource or an action (they leave servers, snapshots or
//     webhooks behind), one that also sets a CheckDestroy (internal/acctest's CheckNo…
//     helpers ask the backend that nothing is left). Data sources, list resources and
//     ephemeral resources only read, so they leave nothing to check.
//
// "Uses the type" is read from the source: the function mentions the type name in a string
// (`resource "reseller_x"`, "reseller_x.web"), itself or through a helper, constant or
// type-name constant it uses (srcIndex).

// TestRegisteredTypesHaveExamplesAndDocs checks the files tfplugindocs reads and writes for each
// registered type, both ways.
func TestRegisteredTypesHaveExamplesAndDocs(t *testing.T) {
	types := RegisteredTypes(context.Background())
	registered := map[string]bool{}
	for _, r := range types {
		registered[r.Kind+"/"+r.Name] = true
		for _, file := range r.Examples() {
			if _, err := os.Stat(filepath.Join(repoRoot, "examples", file)); err != nil {
				t.Errorf("%s: example file examples/%s: %v", r.Name, file, err)
			}
		}
		if _, err := os.Stat(filepath.Join(repoRoot, "docs", r.DocsPage())); err != nil {
			t.Errorf("%s: docs page docs/%s (make generate): %v", r.Name, r.DocsPage(), err)
		}
	}
	for _, kind := range []string{KindResource, KindDataSource, KindEphemeralResource, KindAction, KindListResource} {
		for _, name := range entries(t, filepath.Join(repoRoot, "examples", kind)) {
			if !registered[kind+"/"+name] {
				t.Errorf("examples/%s/%s: no %s of that name is registered (provider.go)", kind, name, kind)
			}
		}
		for _, page := range entries(t, filepath.Join(repoRoot, "docs", kind)) {
			if name := TypeName + "_" + strings.TrimSuffix(page, ".md"); !registered[kind+"/"+name] {
				t.Errorf("docs/%s/%s: no %s %s is registered (provider.go)", kind, page, kind, name)
			}
		}
	}
}

// entries lists the names in a folder, none when it does not exist.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// TestRegisteredTypesHaveAcceptanceTests checks that each registered type is used by a TestAcc…
// function under internal/, and each resource and action by one with a CheckDestroy.
func TestRegisteredTypesHaveAcceptanceTests(t *testing.T) {
	idx := indexSources(t, repoRoot, "internal")
	tests := idx.testFuncs("TestAcc")
	if len(tests) == 0 {
		t.Fatal("no TestAcc functions under internal/")
	}
	used, destroyChecked := map[string][]string{}, map[string]bool{}
	for name, fn := range tests {
		r := idx.reachOf(fn)
		for typ := range r.typeNames {
			used[typ] = append(used[typ], name)
			destroyChecked[typ] = destroyChecked[typ] || r.checkDestroy
		}
	}
	for _, r := range RegisteredTypes(context.Background()) {
		switch {
		case len(used[r.Name]) == 0:
			t.Errorf("%s %s: no TestAcc function under internal/ uses it", r.Kind, r.Name)
		case slices.Contains([]string{KindResource, KindAction}, r.Kind) && !destroyChecked[r.Name]:
			t.Errorf("%s %s: none of the TestAcc functions using it sets a CheckDestroy (internal/acctest's CheckNo… helpers): %s",
				r.Kind, r.Name, strings.Join(used[r.Name], ", "))
		}
	}
}
