package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/api"
)

// httpTestDirs are the packages whose tests drive the API over HTTP: this one's handler tests
// and the conformance suite.
var httpTestDirs = []string{".", "../../apitest"}

// TestEveryRouteHasAnHTTPTest fails when a route of api.Routes is exercised by no test of
// backend/internal/api or backend/apitest, so a new route cannot ship without one.
//
// The rule, read from the test sources: a route is exercised when one top-level declaration
// of a test file (a test, a helper, a table) both
//   - holds a request path for it: a string, or a concatenation or fmt.Sprintf of strings and
//     values (a value, or a fmt verb, stands for an id), or a local variable holding one, that
//     matches the route's path with each {param} as one segment, a query string and the
//     /api/v1 prefix allowed; and
//   - names the route's method (http.MethodPost or "POST"), unless it is GET, which a request
//     without a method is.
//
// It is a reading of the source, not a record of the requests sent, so a declaration that
// builds a path some other way does not count: write the path where the request is made.
func TestEveryRouteHasAnHTTPTest(t *testing.T) {
	var units []testUnit
	for _, dir := range httpTestDirs {
		units = append(units, parseTestUnits(t, dir)...)
	}
	for _, rt := range api.Routes {
		if !routeExercised(rt, units) {
			t.Errorf("%s: no test in backend/internal/api or backend/apitest sends it (see this test's rule)", rt.Pattern())
		}
	}
}

// testUnit is what one top-level declaration of a test file holds: its request paths, read as
// shapes (ids as "1"), and the HTTP methods it names.
type testUnit struct {
	paths   []string
	methods map[string]bool
}

// routeExercised reports whether some unit sends rt.
func routeExercised(rt api.Route, units []testUnit) bool {
	re := routePathRegexp(rt.Path)
	for _, u := range units {
		if rt.Method != "GET" && !u.methods[rt.Method] {
			continue
		}
		for _, p := range u.paths {
			if re.MatchString(p) {
				return true
			}
		}
	}
	return false
}

// routePathRegexp matches the paths a route serves: each {param} one segment, any query.
func routePathRegexp(path string) *regexp.Regexp {
	param := regexp.MustCompile(`\\\{[a-z_]+\\\}`) // a {param} as regexp.QuoteMeta writes it
	pattern := param.ReplaceAllString(regexp.QuoteMeta(path), `[^/?]+`)
	return regexp.MustCompile(`^(/api/v1)?` + pattern + `(\?.*)?$`)
}

// parseTestUnits reads the test files of dir, but for this one, whose own strings are no
// requests.
func parseTestUnits(t *testing.T, dir string) []testUnit {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var units []testUnit
	for _, path := range files {
		if filepath.Base(path) == "routes_tested_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			units = append(units, readUnit(decl))
		}
	}
	if len(units) == 0 {
		t.Fatalf("no test declarations found in %v", httpTestDirs)
	}
	return units
}

// httpMethods are the methods a unit may name.
var httpMethods = map[string]string{
	"MethodGet": "GET", "MethodPost": "POST", "MethodPut": "PUT", "MethodPatch": "PATCH", "MethodDelete": "DELETE",
	"GET": "GET", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH", "DELETE": "DELETE",
}

// readUnit collects the path shapes and method names of one declaration.
func readUnit(decl ast.Decl) testUnit {
	u := testUnit{methods: map[string]bool{}}
	locals := map[string]string{} // local variables holding a path, by name
	ast.Inspect(decl, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					locals[id.Name] = shapeOf(n.Rhs[0], locals)
				}
			}
		case *ast.SelectorExpr:
			if m, ok := httpMethods[n.Sel.Name]; ok && strings.HasPrefix(n.Sel.Name, "Method") {
				u.methods[m] = true
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && httpMethods[s] == s {
				u.methods[s] = true
			}
		}
		if e, ok := n.(ast.Expr); ok {
			if s := shapeOf(e, locals); strings.HasPrefix(s, "/") {
				u.paths = append(u.paths, s)
			}
		}
		return true
	})
	return u
}

// fmtVerb is a verb of a format string, which stands for an id in a path.
var fmtVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// shapeOf is the path an expression builds, with "1" for every value it cannot read: a string,
// a + of shapes, fmt.Sprintf's format, or a local variable already read.
func shapeOf(e ast.Expr, locals map[string]string) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
			return s
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return shapeOf(e.X, locals) + shapeOf(e.Y, locals)
		}
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(e.Args) > 0 {
			return fmtVerb.ReplaceAllString(shapeOf(e.Args[0], locals), "1")
		}
	case *ast.Ident:
		if s, ok := locals[e.Name]; ok {
			return s
		}
	case *ast.ParenExpr:
		return shapeOf(e.X, locals)
	}
	return "1"
}
