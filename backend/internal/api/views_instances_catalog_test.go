package api

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
)

// TestCatalogJSONHoldsTheCatalogue: the JSON made once is what an instance of any plan of the
// catalogue takes, for its product, actions, location, datacenter and template, so the answer
// copies them instead of appending them (an entry compared on a field that always differs
// would leave every part appended and fail this).
func TestCatalogJSONHoldsTheCatalogue(t *testing.T) {
	t.Parallel()
	j := newCatalogJSON(catalog.New())
	for _, d := range catalogDetails(t) {
		for _, lang := range []catalog.Lang{catalog.English, catalog.Persian} {
			_, product := madeJSON(j.products, d.Plan.ID, productOf(&d.Plan), lang)
			_, location := madeJSON(j.locations, d.Location.ID, d.Location, lang)
			_, datacenter := madeJSON(j.datacenters, d.Datacenter.ID, d.Datacenter, lang)
			_, template := madeJSON(j.templates, d.Template.ID, d.Template, lang)
			if !product || !location || !datacenter || !template {
				t.Errorf("plan %d, template %d (%s): made JSON taken for product %t, location %t, datacenter %t, template %t",
					d.Plan.ID, d.Template.ID, lang, product, location, datacenter, template)
			}
		}
	}
}

// TestCatalogJSONOnlyForItsEntry: an entry that differs from the catalogue's in any field, one
// changed at a time (every field of the plan, location, datacenter and template, found by
// reflection, so a new one is changed too), is written as its view writes it, never as the
// catalogue's JSON of the same id. A field the JSON shows and the comparison leaves out fails
// it.
func TestCatalogJSONOnlyForItsEntry(t *testing.T) {
	t.Parallel()
	j := newCatalogJSON(catalog.New())
	for _, base := range catalogDetails(t) {
		for _, part := range []string{"Plan", "Location", "Datacenter", "Template"} {
			for _, change := range fieldChanges(reflect.ValueOf(base).FieldByName(part).Type()) {
				d := base
				change.apply(reflect.ValueOf(&d).Elem().FieldByName(part))
				for _, lang := range []catalog.Lang{catalog.English, catalog.Persian} {
					if got, want := j.appendInstanceDetailAnswer(nil, &d, lang), encodedDetail(t, d, lang); !bytes.Equal(got, want) {
						t.Fatalf("plan %d, %s with %s changed (%s):\n got  %s\n want %s", base.Plan.ID, part, change.name, lang, got, want)
					}
				}
			}
		}
	}
}

// fieldChange changes one field of an entry, nested ones included.
type fieldChange struct {
	name  string
	apply func(entry reflect.Value)
}

// fieldChanges is a change of every settable field of a struct of type typ, and of every field of
// the structs it holds: a string gets a letter more, a number one more, a bool the other value,
// a slice one element more.
func fieldChanges(typ reflect.Type) []fieldChange {
	var out []fieldChange
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			for _, inner := range fieldChanges(f.Type) {
				out = append(out, fieldChange{name: f.Name + "." + inner.name,
					apply: func(v reflect.Value) { inner.apply(v.Field(i)) }})
			}
			continue
		}
		out = append(out, fieldChange{name: f.Name, apply: func(v reflect.Value) { changeValue(v.Field(i)) }})
	}
	return out
}

// changeValue gives v another value of its kind.
func changeValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Slice:
		grown := reflect.Append(v, reflect.New(v.Type().Elem()).Elem())
		if grown.Index(grown.Len()-1).Kind() == reflect.String {
			grown.Index(grown.Len() - 1).SetString("added")
		}
		v.Set(grown)
	default:
		panic(fmt.Sprintf("changeValue: no change for a %s", v.Kind()))
	}
}
