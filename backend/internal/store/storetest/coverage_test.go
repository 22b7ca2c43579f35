package storetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// storeDir is package store, whose interfaces the suite exercises.
const storeDir = ".."

// TestEveryStoreMethodHasACase fails when a method of an interface of package store is called by
// no case of the suite (Run, the methods of suite and the helpers they reach), or an interface is out of the suite's
// reach (neither embedded in store.Store nor handed out by it, directly or through another
// interface): a store method would then run on SQLite and PostgreSQL untested.
//
// It reads the source, as reflection cannot see calls: a method counts as called when a call
// x.Method(...), x not an imported package, appears in Run or in a function of this package
// a case (a method of suite) reaches by naming it (a helper a case uses). The name is all it matches,
// so two interfaces' methods of one name share their calls; store's names are distinct enough
// for that to hold (TestStoreMethodNamesAreDistinct).
func TestEveryStoreMethodHasACase(t *testing.T) {
	ifaces := storeInterfaces(t)
	called := suiteCalls(t)
	for _, name := range sortedKeys(ifaces) {
		if name != "Store" && !reachable(ifaces, "Store", name) {
			t.Errorf("store.%s: not embedded in store.Store, so no Store offers it to the suite", name)
		}
		for _, m := range ifaces[name].methods {
			if !called[m] && notCases[name+"."+m] == "" {
				t.Errorf("store.%s.%s: no case of storetest calls it (add a case: a method of suite)", name, m)
			}
		}
	}
}

// notCases are the methods the suite does not call, and why.
var notCases = map[string]string{
	"Store.Close": "the suite never owns a store: open's caller closes each one it opens",
}

// TestStoreMethodNamesAreDistinct keeps TestEveryStoreMethodHasACase's match by name honest: no
// two of store's interfaces declare a method of one name.
func TestStoreMethodNamesAreDistinct(t *testing.T) {
	owner := map[string]string{}
	ifaces := storeInterfaces(t)
	for _, name := range sortedKeys(ifaces) {
		for _, m := range ifaces[name].methods {
			if prev, ok := owner[m]; ok {
				t.Errorf("method %s: declared by store.%s and store.%s", m, prev, name)
			}
			owner[m] = name
		}
	}
}

// storeInterface is one interface of package store: its own methods, and the names it embeds or
// its methods take (Store's WithTx hands fn a Tx), through which the suite reaches others.
type storeInterface struct {
	methods, embeds []string
}

// storeInterfaces parses package store's interfaces.
func storeInterfaces(t *testing.T) map[string]storeInterface {
	t.Helper()
	out := map[string]storeInterface{}
	for _, f := range parseDir(t, storeDir) {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			it, ok := spec.Type.(*ast.InterfaceType)
			if !ok {
				return false
			}
			var si storeInterface
			for _, field := range it.Methods.List {
				for _, name := range field.Names {
					si.methods = append(si.methods, name.Name)
				}
				ast.Inspect(field.Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						si.embeds = append(si.embeds, id.Name)
					}
					return true
				})
			}
			out[spec.Name.Name] = si
			return false
		})
	}
	if len(out) == 0 {
		t.Fatal("no interfaces found in package store")
	}
	return out
}

// suiteCalls is the names of the methods the suite calls on values (not package functions), in
// Run, in the cases (the methods of suite, which Run runs) and in what they reach through the
// functions they name (their helpers).
func suiteCalls(t *testing.T) map[string]bool {
	t.Helper()
	funcs := map[string]suiteFunc{}
	var cases []string
	for _, f := range parseDir(t, ".") {
		pkgs := importNames(f)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			switch {
			case ok && fn.Recv == nil:
				funcs[fn.Name.Name] = readSuiteFunc(fn, pkgs)
			case ok && isCase(fn):
				funcs[caseKey+fn.Name.Name] = readSuiteFunc(fn, pkgs)
				cases = append(cases, caseKey+fn.Name.Name)
			}
		}
	}
	called, seen := map[string]bool{}, map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		fn, ok := funcs[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		for _, m := range fn.calls {
			called[m] = true
		}
		for _, ref := range fn.refs {
			visit(ref)
		}
	}
	visit("Run")
	for _, c := range cases {
		visit(c)
	}
	if len(cases) < 10 {
		t.Fatalf("found %d cases (methods of suite); want the whole suite", len(cases))
	}
	return called
}

// caseKey prefixes a case's name among the suite's functions, as a method and a function may
// share a name.
const caseKey = "suite."

// isCase reports whether fn is a case of the suite: an exported method of suite, which Run runs
// (storetest.go).
func isCase(fn *ast.FuncDecl) bool {
	if len(fn.Recv.List) != 1 || !fn.Name.IsExported() {
		return false
	}
	id, ok := fn.Recv.List[0].Type.(*ast.Ident)
	return ok && id.Name == "suite"
}

// suiteFunc is what one function of the suite calls on values, and the names it uses.
type suiteFunc struct {
	calls, refs []string
}

// readSuiteFunc reads the calls and names of fn; pkgs are its file's imported package names.
func readSuiteFunc(fn *ast.FuncDecl, pkgs map[string]bool) suiteFunc {
	var sf suiteFunc
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); !ok || !pkgs[x.Name] {
					sf.calls = append(sf.calls, sel.Sel.Name)
				}
			}
		case *ast.Ident:
			sf.refs = append(sf.refs, n.Name)
		}
		return true
	})
	return sf
}

// importNames are the names a file's imports are used under.
func importNames(f *ast.File) map[string]bool {
	pkgs := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = true
	}
	return pkgs
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// reachable reports whether interface to is in from's reach, directly or through others.
func reachable(ifaces map[string]storeInterface, from, to string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(name string) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		for _, e := range ifaces[name].embeds {
			if e == to || walk(e) {
				return true
			}
		}
		return false
	}
	return walk(from)
}

func sortedKeys(m map[string]storeInterface) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
