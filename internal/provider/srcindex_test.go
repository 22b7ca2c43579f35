package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// modulePath is this repository's Go module, whose import paths map onto its folders.
const modulePath = "github.com/reseller/terraform-provider-reseller"

// typeNameToken finds the Terraform type names a string mentions ("reseller_instance" in
// `resource "reseller_instance" "web"` or "reseller_instance.web"), whole words only, so that
// reseller_instance_power is not also read as reseller_instance.
var typeNameToken = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])(` + TypeName + `_[a-z0-9_]*[a-z0-9])`)

// srcIndex is the top-level declarations of the Go files under a folder, with what each one
// mentions, so a test function can be followed through the helpers, constants and other
// packages' type-name constants it uses. It reads the source, not the types: a name is followed
// to every declaration of that name in the folder (methods included), which may find more than
// the compiler would, never less.
type srcIndex struct {
	root  string
	decls map[string][]*srcDecl // by "folder name"
}

// srcDecl is one top-level function, method, constant or variable.
type srcDecl struct {
	name, file   string
	test, fn     bool     // declared in a _test.go file; a function or method
	typeNames    []string // type names in its string literals
	refs         []string // the "folder name" keys it mentions
	checkDestroy bool     // it names CheckDestroy (sets or passes on a resource.TestCase's)
}

// indexSources parses every Go file under dir (a folder of the repository at root).
func indexSources(t *testing.T, root, dir string) *srcIndex {
	t.Helper()
	idx := &srcIndex{root: root, decls: map[string][]*srcDecl{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		idx.addFile(path, f)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the sources under %s: %v", dir, err)
	}
	return idx
}

// addFile indexes the top-level declarations of one parsed file.
func (idx *srcIndex) addFile(path string, f *ast.File) {
	folder := filepath.Dir(path)
	imports := idx.moduleImports(f)
	add := func(name string, node ast.Node) {
		_, fn := node.(*ast.FuncDecl)
		d := &srcDecl{name: name, file: path, test: strings.HasSuffix(path, "_test.go"), fn: fn}
		d.scan(node, folder, imports)
		idx.decls[folder+" "+name] = append(idx.decls[folder+" "+name], d)
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			add(decl.Name.Name, decl)
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						add(n.Name, vs)
					}
				}
			}
		}
	}
}

// moduleImports maps the names a file imports this module's packages under to their folders.
func (idx *srcIndex) moduleImports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		rest, ok := strings.CutPrefix(path, modulePath+"/")
		if !ok {
			continue
		}
		name := filepath.Base(rest)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = filepath.Join(idx.root, rest)
	}
	return out
}

// scan records what node mentions: type names in string literals, the names it uses (in its own
// folder, or in an imported package of the module) and CheckDestroy.
func (d *srcDecl) scan(node ast.Node, folder string, imports map[string]string) {
	ast.Inspect(node, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
				for _, m := range typeNameToken.FindAllStringSubmatch(s, -1) {
					d.typeNames = append(d.typeNames, m[1])
				}
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && imports[x.Name] != "" {
				d.refs = append(d.refs, imports[x.Name]+" "+n.Sel.Name)
			}
		case *ast.Ident:
			d.refs = append(d.refs, folder+" "+n.Name)
			d.checkDestroy = d.checkDestroy || n.Name == "CheckDestroy"
		}
		return true
	})
}

// reach is what a declaration mentions, itself and through everything it uses.
type reach struct {
	typeNames    map[string]bool
	checkDestroy bool
}

// reachOf follows d through the declarations it uses.
func (idx *srcIndex) reachOf(d *srcDecl) reach {
	r := reach{typeNames: map[string]bool{}}
	seen := map[*srcDecl]bool{}
	var visit func(*srcDecl)
	visit = func(d *srcDecl) {
		if seen[d] {
			return
		}
		seen[d] = true
		for _, n := range d.typeNames {
			r.typeNames[n] = true
		}
		r.checkDestroy = r.checkDestroy || d.checkDestroy
		for _, ref := range d.refs {
			for _, next := range idx.decls[ref] {
				visit(next)
			}
		}
	}
	visit(d)
	return r
}

// testFuncs is every test function whose name starts with prefix, by "file: name".
func (idx *srcIndex) testFuncs(prefix string) map[string]*srcDecl {
	out := map[string]*srcDecl{}
	for _, decls := range idx.decls {
		for _, d := range decls {
			if d.test && d.fn && strings.HasPrefix(d.name, prefix) {
				rel, _ := filepath.Rel(idx.root, d.file)
				out[rel+": "+d.name] = d
			}
		}
	}
	return out
}
