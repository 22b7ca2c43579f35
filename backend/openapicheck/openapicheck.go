// Package openapicheck lets tests hold a Go struct to a schema of the OpenAPI document
// (backend/internal/openapi), so a type written by hand cannot drift from the wire contract
// unseen: a renamed tag, a field the spec does not have, a property the type forgets, a JSON
// type that differs, a null the type cannot hold or a required property it may leave out each
// fail the test that names the type.
//
// The bodies both ends share live in the wire package at the module's top level; the views
// left in backend/internal/api and the types left in the provider's client (internal/client)
// are written by hand. All are held to the document with this package, and Limits holds the
// document's lengths and bounds to the Go constants they come from. It sits outside
// backend/internal so the provider's tests (and wire's) can import it; nothing but tests does.
package openapicheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/reseller/terraform-provider-reseller/backend/internal/openapi"
)

// Direction says which way a Go type carries the JSON of its schema, from a client's side.
// The rules of nullability and omission differ: a type that reads an answer must hold every
// null the answer may carry, and a type that writes a request must leave out exactly the
// properties that are optional.
type Direction int

const (
	// Response is a type that decodes a body the API sends.
	Response Direction = iota
	// Request is a type that encodes a body a client sends.
	Request
)

// String names the direction in a difference's heading.
func (d Direction) String() string {
	if d == Request {
		return "request"
	}
	return "response"
}

// Checker holds Go types to the schemas of one document and remembers every struct type it
// has checked, nested ones included, so a test can prove it left none out.
type Checker struct {
	doc     *openapi3.T
	checked map[reflect.Type]bool
	// encodes holds the JSON type of each self-encoding Go type a test vouched for (Encodes).
	encodes map[reflect.Type]string
}

// New returns a Checker on the backend's OpenAPI document.
func New() (*Checker, error) {
	doc, err := openapi.Document()
	if err != nil {
		return nil, err
	}
	return &Checker{doc: doc, checked: map[reflect.Type]bool{}, encodes: map[reflect.Type]string{}}, nil
}

// Encodes declares the JSON type ("number", "string"...) that the Go type t, which decides its
// own JSON, always writes and reads, such as money.Micros, a number of dollars. Without it such
// a type is a difference, since its kind says nothing of its JSON; the declaration belongs
// with the type's own round-trip test.
func (c *Checker) Encodes(t reflect.Type, jsonType string) {
	c.encodes[t] = jsonType
}

// Struct returns nil when the struct type t and the component schema named schema agree, and
// otherwise one error listing every difference, each prefixed with the JSON path to it. Nested
// structs are checked against the schemas of their properties.
func (c *Checker) Struct(t reflect.Type, schema string, dir Direction) error {
	ref := c.doc.Components.Schemas[schema]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("%s: no schema %q in the document", t, schema)
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("%s: not a struct", t)
	}
	var diffs []string
	c.object(&diffs, t.Name(), t, flatten(ref.Value), dir)
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s (%s) against schema %s:\n  %s", t, dir, schema, strings.Join(diffs, "\n  "))
}

// Checked returns the names of the struct types checked so far whose package path is pkgPath.
// An instance of a generic type counts for the type as declared (wire.Order[float64] is
// "Order"), since that is what TaggedStructs finds in the source.
func (c *Checker) Checked(pkgPath string) []string {
	var out []string
	for t := range c.checked {
		if t.PkgPath() == pkgPath {
			name, _, _ := strings.Cut(t.Name(), "[")
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// schemaView is a schema with its allOf members merged in: what a value must look like,
// whatever way the document spells it.
type schemaView struct {
	typ        string
	nullable   bool
	properties map[string]*openapi3.Schema
	required   map[string]bool
	items      *openapi3.Schema
	additional *openapi3.Schema
}

// flatten merges s and its allOf members. A schema is nullable when it says so itself, or when
// every member of its allOf is (a member that refuses null refuses it for the whole).
func flatten(s *openapi3.Schema) schemaView {
	v := schemaView{properties: map[string]*openapi3.Schema{}, required: map[string]bool{}}
	merge(&v, s)
	v.nullable = s.Nullable
	if len(s.AllOf) > 0 && !s.Nullable {
		v.nullable = true
		for _, m := range s.AllOf {
			v.nullable = v.nullable && m.Value.Nullable
		}
	}
	return v
}

// merge adds s and, depth first, its allOf members to v; the first type, items and
// additionalProperties met win, properties and required names add up.
func merge(v *schemaView, s *openapi3.Schema) {
	if s.Type != nil && len(s.Type.Slice()) == 1 && v.typ == "" {
		v.typ = s.Type.Slice()[0]
	}
	for name, p := range s.Properties {
		v.properties[name] = p.Value
	}
	for _, name := range s.Required {
		v.required[name] = true
	}
	if s.Items != nil && v.items == nil {
		v.items = s.Items.Value
	}
	if s.AdditionalProperties.Schema != nil && v.additional == nil {
		v.additional = s.AdditionalProperties.Schema.Value
	}
	for _, m := range s.AllOf {
		merge(v, m.Value)
	}
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	goName    string
	name      string
	typ       reflect.Type
	omitempty bool
}

// jsonFields lists the fields encoding/json reads and writes for t: exported fields not tagged
// "-", with the fields of untagged embedded structs in place of the embedding.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		options := strings.Split(opts, ",")
		omit := slices.Contains(options, "omitempty") || slices.Contains(options, "omitzero")
		out = append(out, jsonField{goName: f.Name, name: name, typ: f.Type, omitempty: omit})
	}
	return out
}

// object checks a struct against an object schema, both ways: every field names a property and
// every property has a field.
func (c *Checker) object(diffs *[]string, path string, t reflect.Type, v schemaView, dir Direction) {
	c.checked[t] = true
	if v.typ != "object" {
		*diffs = append(*diffs, fmt.Sprintf("%s: Go struct %s, schema type %q", path, t, v.typ))
		return
	}
	seen := map[string]bool{}
	for _, f := range jsonFields(t) {
		at := path + "." + f.name
		seen[f.name] = true
		prop, ok := v.properties[f.name]
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: Go field %s has no property %q in the schema", at, f.goName, f.name))
			continue
		}
		c.field(diffs, at, f, prop, v.required[f.name], dir)
	}
	var missing []string
	for name := range v.properties {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		*diffs = append(*diffs, fmt.Sprintf("%s.%s: schema property has no Go field in %s", path, name, t))
	}
}

// field checks what depends on the field's place in its object (required, nullable, omitted)
// and then its value.
func (c *Checker) field(diffs *[]string, path string, f jsonField, prop *openapi3.Schema, required bool, dir Direction) {
	pv := flatten(prop)
	ptr := f.typ.Kind() == reflect.Pointer
	add := func(format string, args ...any) {
		*diffs = append(*diffs, path+": "+fmt.Sprintf(format, args...))
	}
	if f.omitempty && required {
		add("Go field %s is omitempty, but the property is required", f.goName)
	}
	if ptr && (f.typ.Elem().Kind() == reflect.Slice || f.typ.Elem().Kind() == reflect.Map) {
		add("Go field %s is a pointer to %s: a nil %s already stands for null or absent", f.goName, f.typ.Elem().Kind(), f.typ.Elem().Kind())
	}
	switch dir {
	case Response:
		if pv.nullable && !holdsNull(f.typ) {
			add("the property is nullable, but Go field %s (%s) cannot hold null", f.goName, f.typ)
		}
		if !pv.nullable && required && ptr {
			add("the property is required and not nullable, but Go field %s is a pointer (%s)", f.goName, f.typ)
		}
	case Request:
		if !required && !f.omitempty {
			add("the property is optional, but Go field %s is always sent (no omitempty)", f.goName)
		}
		if ptr && !f.omitempty && !pv.nullable {
			add("Go field %s is a pointer sent as null when nil, but the property is not nullable", f.goName)
		}
	}
	t := f.typ
	if ptr {
		t = t.Elem()
	}
	c.value(diffs, path, t, prop, dir)
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// holdsNull reports whether a value of t can be null after decoding JSON null into it.
func holdsNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

// value checks that the JSON type of t is the schema's, recursing into arrays, maps and objects.
func (c *Checker) value(diffs *[]string, path string, t reflect.Type, s *openapi3.Schema, dir Direction) {
	if t == rawMessage || t.Kind() == reflect.Interface {
		return
	}
	v := flatten(s)
	if declared, ok := c.encodes[t]; ok {
		if declared != v.typ {
			*diffs = append(*diffs, fmt.Sprintf("%s: Go type %s is JSON %s, the schema says %q", path, t, declared, v.typ))
		}
		return
	}
	if custom(t) {
		*diffs = append(*diffs, fmt.Sprintf("%s: Go type %s encodes itself; its JSON type cannot be checked", path, t))
		return
	}
	if want := jsonType(t); want == "" || want != v.typ {
		*diffs = append(*diffs, fmt.Sprintf("%s: Go type %s is JSON %s, the schema says %q", path, t, orUnknown(want), v.typ))
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.items == nil {
			*diffs = append(*diffs, fmt.Sprintf("%s: array schema without items", path))
			return
		}
		c.element(diffs, path+"[]", t.Elem(), v.items, dir)
	case reflect.Map:
		c.mapValue(diffs, path, t, v, dir)
	case reflect.Struct:
		c.object(diffs, path, t, v, dir)
	}
}

// element checks an array item or a map value: a pointer stands for a nullable item.
func (c *Checker) element(diffs *[]string, path string, t reflect.Type, s *openapi3.Schema, dir Direction) {
	if t.Kind() == reflect.Pointer {
		if !flatten(s).nullable {
			*diffs = append(*diffs, fmt.Sprintf("%s: Go element %s is a pointer, but the items are not nullable", path, t))
		}
		t = t.Elem()
	}
	c.value(diffs, path, t, s, dir)
}

// mapValue checks a Go map against an object schema: a map stands for additionalProperties
// (or a free-form object when its values are `any`), never for named properties.
func (c *Checker) mapValue(diffs *[]string, path string, t reflect.Type, v schemaView, dir Direction) {
	if t.Key().Kind() != reflect.String {
		*diffs = append(*diffs, fmt.Sprintf("%s: Go map key %s is not a string", path, t.Key()))
		return
	}
	if len(v.properties) > 0 {
		*diffs = append(*diffs, fmt.Sprintf("%s: Go map %s, but the schema names properties: use a struct", path, t))
		return
	}
	if v.additional == nil {
		if t.Elem().Kind() != reflect.Interface {
			*diffs = append(*diffs, fmt.Sprintf("%s: Go map of %s, but the schema is a free-form object: use map[string]any", path, t.Elem()))
		}
		return
	}
	c.element(diffs, path+"{}", t.Elem(), v.additional, dir)
}

// custom reports whether t (or *t) decides its own JSON, so its kind says nothing of it.
func custom(t reflect.Type) bool {
	marshaler := reflect.TypeFor[json.Marshaler]()
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	return t.Implements(marshaler) || t.Implements(unmarshaler) ||
		reflect.PointerTo(t).Implements(marshaler) || reflect.PointerTo(t).Implements(unmarshaler)
}

// jsonType is the JSON Schema type encoding/json gives a Go type; "" when it has none.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// TaggedStructs returns the names of the struct types declared in the non-test Go files of
// dir that have at least one field with a `json` tag: the types that carry JSON, which a test
// compares with Checked to prove it left none unchecked.
func TaggedStructs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("openapicheck: read %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("openapicheck: %w", err)
		}
		out = append(out, taggedStructs(file)...)
	}
	sort.Strings(out)
	return out, nil
}

func taggedStructs(file *ast.File) []string {
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		spec, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := spec.Type.(*ast.StructType)
		if !ok {
			return true
		}
		for _, f := range st.Fields.List {
			if f.Tag != nil && reflect.StructTag(strings.Trim(f.Tag.Value, "`")).Get("json") != "" {
				out = append(out, spec.Name.Name)
				break
			}
		}
		return true
	})
	return out
}

// Covered returns nil when every struct type of the package in dir that carries JSON (see
// TaggedStructs) has been checked or is named in exempt (with the reason it is not a body of
// the document), and otherwise an error naming each one left out and each exemption that no
// longer applies. pkgPath is the package's import path.
func (c *Checker) Covered(dir, pkgPath string, exempt map[string]string) error {
	tagged, err := TaggedStructs(dir)
	if err != nil {
		return err
	}
	checked := map[string]bool{}
	for _, name := range c.Checked(pkgPath) {
		checked[name] = true
	}
	var errs []error
	for _, name := range tagged {
		_, skip := exempt[name]
		switch {
		case checked[name] && skip:
			errs = append(errs, fmt.Errorf("%s is checked and exempt: drop the exemption", name))
		case !checked[name] && !skip:
			errs = append(errs, fmt.Errorf("%s carries JSON but was not checked against the document", name))
		}
	}
	for name := range exempt {
		if !slices.Contains(tagged, name) {
			errs = append(errs, fmt.Errorf("exempt %s is not a struct with json tags in %s", name, dir))
		}
	}
	return errors.Join(errs...)
}
