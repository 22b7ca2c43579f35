package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestDocsNameWhatExists fails when a comment or a document names something of this repository
// that does not exist, as a renamed test or function leaves behind. The rule:
//
// Where: the comments of every Go file; Markdown files (*.md, and the *.md.tmpl templates of
// docs/) except docs/, which `make generate` writes from templates/ and examples/, and except
// CHANGELOG.md, whose entries are history: they name what existed when they were written. In
// Markdown only code is read: `code spans` and fenced blocks; a Go comment is read whole, since
// what is code there shows by its form alone.
//
// What: three forms, each code-like by itself.
//   - TestXxx (TestXxx/sub names a subtest): a test function, or another declaration (a method
//     TestWebhook, a type TestRequest), of that name exists. After -run, or followed by *, …,
//     | or (, it is a pattern, and a name that starts with it is enough (TestAcc…).
//   - pkg.Name or pkg.Type.Member, with pkg the name of a package of this module (store,
//     service, tfutil, ...) not preceded by a dot, slash or letter: Name is declared in a
//     package of that name, at the top level or as a method or field (service.CreateOrder is
//     Service's), and so is Member; followed by * it is a prefix (datacenter.Status*). In a Go
//     file that does not import pkg but uses that name in its code (a variable plan), the
//     comment means the variable and is not read.
//   - in Markdown, a path of the repository (backend/..., internal/..., examples/...,
//     templates/..., bench/..., webhook/..., docs/...): it exists from the root, from the
//     document's folder or one above it, or from backend/ (whose packages the docs name
//     internal/api).
//
// A package doc comment names its package too (TestPackageDocsNameTheirPackage). A passage of
// Markdown between <!-- refcheck: off --> and <!-- refcheck: on --> is not read: the files of
// a made-up example (ARCHITECTURE.md's ssh_key).
func TestDocsNameWhatExists(t *testing.T) {
	idx := indexModule(t, ".")
	for _, src := range docSources(t, ".") {
		for _, ref := range src.refs() {
			if why := idx.missing(ref, src.path); why != "" {
				t.Errorf("%s: %s: %s", src.path, ref, why)
			}
		}
	}
}

// TestPackageDocsNameTheirPackage: a package doc comment that starts "Package x" or "Command x"
// names its package (x its name) or program (x its folder), as go doc reads them.
func TestPackageDocsNameTheirPackage(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && skipDirs[d.Name()] {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || f.Doc == nil {
			return err
		}
		want := "Package " + f.Name.Name
		if dir := filepath.Dir(path); f.Name.Name == "main" && dir == "." {
			want = "Command terraform-provider-reseller" // the repository's folder may be named otherwise
		} else if f.Name.Name == "main" {
			want = "Command " + filepath.Base(dir)
		}
		word := strings.Fields(f.Doc.Text())
		if len(word) >= 2 && (word[0] == "Package" || word[0] == "Command") && word[0]+" "+word[1] != want {
			t.Errorf("%s: the doc comment starts %q, want %q", path, word[0]+" "+word[1], want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// docSource is the text of one file the check reads: a Go file's comments, or a document's code.
type docSource struct {
	path     string
	text     string
	markdown bool
	// shadowed are the names a Go file uses in its code without importing a package of that
	// name: variables and parameters, such as plan or client.
	shadowed map[string]bool
}

// goSource reads a Go file's comments, and which names its code uses without importing them.
func goSource(path string, f *ast.File) docSource {
	src := docSource{path: path, shadowed: map[string]bool{}}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		name := strings.Trim(imp.Path.Value, `"`)
		name = name[strings.LastIndex(name, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	// The code's own names: not the package clause, nor what follows a dot (x.plan is a field).
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, visit)
			return false
		case *ast.Ident:
			if !imported[n.Name] {
				src.shadowed[n.Name] = true
			}
		}
		return true
	}
	for _, decl := range f.Decls {
		ast.Inspect(decl, visit)
	}
	var text strings.Builder
	for _, c := range f.Comments {
		text.WriteString(c.Text() + "\n")
	}
	src.text = text.String()
	return src
}

// skipDirs are folders that hold no sources of ours (dependencies, generated pages, fixtures).
var skipDirs = map[string]bool{".git": true, "node_modules": true, "testdata": true, "dist": true}

// docSources reads every Go file's comments and every Markdown file's code under root.
func docSources(t *testing.T, root string) []docSource {
	t.Helper()
	var out []docSource
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (skipDirs[d.Name()] || path == filepath.Join(root, "docs")):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case strings.HasSuffix(path, ".go"):
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			out = append(out, goSource(path, f))
		case strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".md.tmpl"):
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if filepath.Base(path) != "CHANGELOG.md" {
				out = append(out, docSource{path: path, text: markdownCode(string(raw)), markdown: true})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the sources: %v", err)
	}
	return out
}

// codeSpan is a Markdown code span or fenced block.
var codeSpan = regexp.MustCompile("(?s)```.*?```|`[^`\n]+`")

// refcheckOff is a passage of Markdown the check does not read.
var refcheckOff = regexp.MustCompile(`(?s)<!-- refcheck: off.*?<!-- refcheck: on -->`)

// markdownCode is the code of a Markdown text, one piece a line, but for the passages marked
// off.
func markdownCode(text string) string {
	return strings.Join(codeSpan.FindAllString(refcheckOff.ReplaceAllString(text, ""), -1), "\n")
}

// The three forms of a reference (see TestDocsNameWhatExists), and what makes a name a pattern.
var (
	testRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])(Test[A-Z0-9_][A-Za-z0-9_]*)([*|(…]?)`)
	runFlag = regexp.MustCompile(`-run[ =]['"]?$`)
	pkgRef  = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?(\*?)`)
	pathRef = regexp.MustCompile(`(?:^|[\s` + "`" + `("'\[])((?:backend|internal|examples|templates|bench|webhook|docs)/[A-Za-z0-9_./{}-]*[A-Za-z0-9_])`)
)

// reference is one name a source uses: its form and its parts.
type reference struct {
	form   string // "test", "pkg" or "path"
	parts  []string
	prefix bool // a pattern: a name that starts with it is enough
}

func (r reference) String() string { return strings.Join(r.parts, ".") }

// refs finds the references of a source.
func (s docSource) refs() []reference {
	var out []reference
	for _, m := range testRef.FindAllStringSubmatchIndex(s.text, -1) {
		name, marker := s.text[m[2]:m[3]], s.text[m[4]:m[5]]
		pattern := marker != "" || runFlag.MatchString(s.text[:m[2]])
		out = append(out, reference{form: "test", parts: []string{name}, prefix: pattern})
	}
	for _, m := range pkgRef.FindAllStringSubmatch(s.text, -1) {
		if s.shadowed[m[1]] {
			continue
		}
		parts := []string{m[1], m[2]}
		if m[3] != "" {
			parts = append(parts, m[3])
		}
		out = append(out, reference{form: "pkg", parts: parts, prefix: m[4] != ""})
	}
	if s.markdown {
		for _, m := range pathRef.FindAllStringSubmatch(s.text, -1) {
			out = append(out, reference{form: "path", parts: []string{m[1]}})
		}
	}
	return out
}

// moduleIndex is what the module declares: every name starting with Test (its tests, and a
// method or type or two), and by package name the top-level names and the member (method and
// field) names.
type moduleIndex struct {
	root    string
	tests   []string                   // sorted
	names   map[string]map[string]bool // package name -> top-level names
	members map[string]map[string]bool // package name -> method and field names
}

// indexModule parses every Go file of the module under root.
func indexModule(t *testing.T, root string) *moduleIndex {
	t.Helper()
	idx := &moduleIndex{root: root, names: map[string]map[string]bool{}, members: map[string]map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && skipDirs[d.Name()] {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		idx.add(f)
		return nil
	})
	if err != nil {
		t.Fatalf("indexing the module: %v", err)
	}
	for _, names := range []map[string]map[string]bool{idx.names, idx.members} {
		for _, set := range names {
			for name := range set {
				if strings.HasPrefix(name, "Test") {
					idx.tests = append(idx.tests, name)
				}
			}
		}
	}
	sort.Strings(idx.tests)
	return idx
}

// add records one file's declarations under its package's name (an external test package's
// under the package it tests).
func (idx *moduleIndex) add(f *ast.File) {
	pkg := strings.TrimSuffix(f.Name.Name, "_test")
	if idx.names[pkg] == nil {
		idx.names[pkg], idx.members[pkg] = map[string]bool{}, map[string]bool{}
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv != nil {
				idx.members[pkg][decl.Name.Name] = true
			} else {
				idx.names[pkg][decl.Name.Name] = true
			}
		case *ast.GenDecl:
			idx.addGen(pkg, decl)
		}
	}
}

// addGen records the types, constants and variables of a declaration, and the fields and
// interface methods of its types.
func (idx *moduleIndex) addGen(pkg string, decl *ast.GenDecl) {
	for _, spec := range decl.Specs {
		switch spec := spec.(type) {
		case *ast.TypeSpec:
			idx.names[pkg][spec.Name.Name] = true
			ast.Inspect(spec.Type, func(n ast.Node) bool {
				if field, ok := n.(*ast.Field); ok {
					for _, name := range field.Names {
						idx.members[pkg][name.Name] = true
					}
				}
				return true
			})
		case *ast.ValueSpec:
			for _, name := range spec.Names {
				idx.names[pkg][name.Name] = true
			}
		}
	}
}

// missing says why ref, used in the file at from, names nothing; "" when it names something.
func (idx *moduleIndex) missing(ref reference, from string) string {
	switch ref.form {
	case "test":
		i := sort.SearchStrings(idx.tests, ref.parts[0])
		if ref.parts[0] == "TestXxx" || // the testing package's own placeholder
			i < len(idx.tests) && (idx.tests[i] == ref.parts[0] || ref.prefix && strings.HasPrefix(idx.tests[i], ref.parts[0])) {
			return ""
		}
		return "no test function (or other declaration) of that name"
	case "pkg":
		return idx.missingInPackage(ref)
	}
	return idx.missingPath(ref.parts[0], from)
}

// missingInPackage says why a pkg.Name or pkg.Type.Member reference names nothing.
func (idx *moduleIndex) missingInPackage(ref reference) string {
	pkg, name := ref.parts[0], ref.parts[1]
	names, ok := idx.names[pkg]
	if !ok {
		return "" // not a package of this module: none of our business
	}
	if len(ref.parts) == 3 {
		if !names[name] {
			return "package " + pkg + " declares no " + name
		}
		if !idx.members[pkg][ref.parts[2]] {
			return "package " + pkg + " declares no method or field " + ref.parts[2]
		}
		return ""
	}
	if names[name] || idx.members[pkg][name] {
		return ""
	}
	if ref.prefix {
		for _, set := range []map[string]bool{names, idx.members[pkg]} {
			for n := range set {
				if strings.HasPrefix(n, name) {
					return ""
				}
			}
		}
	}
	return "package " + pkg + " declares no " + name
}

// missingPath says why path, named in the file at from, is not a file or folder of the
// repository, from the root, backend/, or the file's folder or one above it.
func (idx *moduleIndex) missingPath(path, from string) string {
	clean := strings.TrimSuffix(path, "/...")
	if _, err := os.Stat(filepath.Join(idx.root, "backend", clean)); err == nil {
		return ""
	}
	for dir := filepath.Dir(from); ; dir = filepath.Dir(dir) {
		if matches, _ := filepath.Glob(filepath.Join(dir, clean)); len(matches) > 0 {
			return ""
		}
		if _, err := os.Stat(filepath.Join(dir, clean)); err == nil {
			return ""
		}
		if dir == "." || dir == idx.root || dir == "/" {
			return "no such file or folder"
		}
	}
}
