package api

import (
	"slices"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
)

// catalogJSON holds the JSON of every catalogue entry an instance's detail shows (its plan as
// server_product and its actions, its location, datacenter and template), in each language,
// made once at start from the same appenders (newCatalogJSON). These parts are half of the
// detail's bytes and all of its texts (Persian names, a description, a country, a flag), and
// appending them entry by entry was half of the answer's cost; copied whole, they cost a map
// lookup and a comparison each.
//
// An entry's JSON is used only when the detail's entry equals the one it was made from: the
// detail's catalogue values are the catalogue's own (service.describeWith) so they always
// match, but the answer never depends on where a value came from. Strings that share the
// catalogue's bytes compare without being read. TestCatalogJSONOnlyForItsEntry changes every
// field of every entry, one at a time, and wants the detail written as its view writes it.
//
// The zero catalogJSON holds nothing: every part is then appended as it is.
type catalogJSON struct {
	products    map[int64]madeFrom[productShown]
	actions     map[int64]madeFrom[[]string]
	locations   map[int64]madeFrom[catalog.Location]
	datacenters map[int64]madeFrom[catalog.Datacenter]
	templates   map[int64]madeFrom[catalog.Template]
}

// madeFrom is an entry's JSON with the entry it was made from: json[0] in Persian (the
// language of every request not in English, as catalog.Text.In falls back), json[1] in English.
type madeFrom[T any] struct {
	entry T
	json  [2][]byte
}

// productShown is what server_product shows of a plan: comparable, unlike the plan (slices).
type productShown struct {
	id                    int64
	name                  catalog.Text
	typ                   string
	cpu, memoryGB, diskGB int
}

func productOf(p *catalog.Plan) productShown {
	return productShown{id: p.ID, name: p.Name, typ: p.Type, cpu: p.CPU, memoryGB: p.MemoryGB, diskGB: p.DiskGB}
}

// newCatalogJSON makes the JSON of every plan, location, datacenter and template of c.
func newCatalogJSON(c *catalog.Catalog) catalogJSON {
	j := catalogJSON{products: map[int64]madeFrom[productShown]{}, actions: map[int64]madeFrom[[]string]{},
		locations: map[int64]madeFrom[catalog.Location]{}, datacenters: map[int64]madeFrom[catalog.Datacenter]{},
		templates: map[int64]madeFrom[catalog.Template]{}}
	for _, p := range c.Plans(catalog.PlanFilter{}) {
		j.products[p.ID] = madeInBoth(productOf(&p), func(b []byte, lang catalog.Lang) []byte {
			return appendProduct(b, &p, lang)
		})
		j.actions[p.ID] = madeInBoth(p.Actions, func(b []byte, _ catalog.Lang) []byte {
			return appendActions(b, p.Actions) // the same in both: actions are not translated
		})
	}
	for _, l := range c.Locations() {
		j.locations[l.ID] = madeInBoth(l, func(b []byte, lang catalog.Lang) []byte {
			return appendLocation(b, &l, lang)
		})
	}
	for _, dc := range c.Datacenters() {
		j.datacenters[dc.ID] = madeInBoth(dc, func(b []byte, lang catalog.Lang) []byte {
			return appendDatacenter(b, &dc, lang)
		})
	}
	for _, t := range c.Templates() {
		j.templates[t.ID] = madeInBoth(t, func(b []byte, lang catalog.Lang) []byte {
			return appendTemplate(b, &t, lang)
		})
	}
	return j
}

// madeInBoth is entry's JSON in both languages, as appendEntry writes it.
func madeInBoth[T any](entry T, appendEntry func([]byte, catalog.Lang) []byte) madeFrom[T] {
	return madeFrom[T]{entry: entry, json: [2][]byte{appendEntry(nil, catalog.Persian), appendEntry(nil, catalog.English)}}
}

// langIndex is lang's index in madeFrom.json.
func langIndex(lang catalog.Lang) int {
	if lang == catalog.English {
		return 1
	}
	return 0
}

// appendProduct appends p's server_product, from j when it holds the plan as p shows it.
func (j *catalogJSON) appendProduct(b []byte, p *catalog.Plan, lang catalog.Lang) []byte {
	if json, ok := madeJSON(j.products, p.ID, productOf(p), lang); ok {
		return append(b, json...)
	}
	return appendProduct(b, p, lang)
}

// appendActions appends p's actions, from j when it holds them as p has them.
func (j *catalogJSON) appendActions(b []byte, p *catalog.Plan) []byte {
	if m, ok := j.actions[p.ID]; ok && slices.Equal(m.entry, p.Actions) {
		return append(b, m.json[0]...) // either language's
	}
	return appendActions(b, p.Actions)
}

// appendLocation appends l, from j when it holds l as it is.
func (j *catalogJSON) appendLocation(b []byte, l *catalog.Location, lang catalog.Lang) []byte {
	if json, ok := madeJSON(j.locations, l.ID, *l, lang); ok {
		return append(b, json...)
	}
	return appendLocation(b, l, lang)
}

// appendDatacenter appends dc, from j when it holds dc as it is.
func (j *catalogJSON) appendDatacenter(b []byte, dc *catalog.Datacenter, lang catalog.Lang) []byte {
	if json, ok := madeJSON(j.datacenters, dc.ID, *dc, lang); ok {
		return append(b, json...)
	}
	return appendDatacenter(b, dc, lang)
}

// appendTemplate appends t, from j when it holds t as it is.
func (j *catalogJSON) appendTemplate(b []byte, t *catalog.Template, lang catalog.Lang) []byte {
	if json, ok := madeJSON(j.templates, t.ID, *t, lang); ok {
		return append(b, json...)
	}
	return appendTemplate(b, t, lang)
}

// madeJSON is the JSON in lang made from the entry of id in m, if that entry equals entry.
func madeJSON[T comparable](m map[int64]madeFrom[T], id int64, entry T, lang catalog.Lang) ([]byte, bool) {
	made, ok := m[id]
	if !ok || made.entry != entry {
		return nil, false
	}
	return made.json[langIndex(lang)], true
}
