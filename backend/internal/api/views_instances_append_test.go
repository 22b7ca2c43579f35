package api

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// TestInstanceDetailAnswerAsEncoded: GET /instances/{id}'s answer appended by hand is byte for
// byte what encoding/json writes for the envelope around newInstanceDetailJSON, the view that
// defines the shape, for a hand-made instance, the zero one, a thousand filled at random by
// reflection (every field of the service's detail, nested ones included, awkward strings,
// extreme numbers, zero values and times in other zones) and one of every plan and template of
// the catalogue, in both languages, with the catalogue's JSON made once and without. A field of
// the view the appender leaves out, or writes in another order, fails it.
func TestInstanceDetailAnswerAsEncoded(t *testing.T) {
	t.Parallel()
	cases := []service.InstanceDetail{handMadeDetail(), {}}
	rng := rand.New(rand.NewPCG(44, 2026))
	for range 1000 {
		var d service.InstanceDetail
		fillRandom(rng, reflect.ValueOf(&d).Elem())
		cases = append(cases, d)
	}
	// Every plan of the catalogue, with each of its templates, takes the catalogue's JSON.
	cases = append(cases, catalogDetails(t)...)
	made := map[string]catalogJSON{"none": {}, "catalogue": newCatalogJSON(catalog.New())}
	for i, d := range cases {
		for _, lang := range []catalog.Lang{catalog.English, catalog.Persian} {
			want := encodedDetail(t, d, lang)
			for name, j := range made {
				if got := j.appendInstanceDetailAnswer(nil, &d, lang); !bytes.Equal(got, want) {
					t.Fatalf("case %d (%s, catalogue JSON %s):\n got  %s\n want %s", i, lang, name, got, want)
				}
			}
		}
	}
}

// encodedDetail is what encoding/json writes for the envelope around newInstanceDetailJSON(d, lang).
func encodedDetail(t testing.TB, d service.InstanceDetail, lang catalog.Lang) []byte {
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(successBody{Success: true, Data: newInstanceDetailJSON(d, lang)}); err != nil {
		t.Fatal(err)
	}
	return want.Bytes()
}

// catalogDetails is handMadeDetail for every plan of the catalogue and each of its templates,
// with the catalogue's entries as describeWith takes them.
func catalogDetails(t testing.TB) []service.InstanceDetail {
	c := catalog.New()
	var out []service.InstanceDetail
	for _, p := range c.Plans(catalog.PlanFilter{}) {
		for _, tid := range p.TemplateIDs {
			d := handMadeDetail()
			d.Plan = p
			var dc, loc, tmpl bool
			d.Datacenter, dc = c.Datacenter(p.DatacenterID)
			d.Location, loc = c.Location(p.LocationID)
			d.Template, tmpl = c.Template(tid)
			if !dc || !loc || !tmpl {
				t.Fatalf("plan %d, template %d: the catalogue lacks its datacenter, location or template", p.ID, tid)
			}
			d.PlanID, d.DatacenterID, d.LocationID, d.TemplateID = p.ID, p.DatacenterID, p.LocationID, tid
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatal("the catalogue has no plan with a template")
	}
	return out
}

// catalogDetail is an active instance of the catalogue's first plan and template, whose
// location has a flag (the one text outside the BMP).
func catalogDetail(t testing.TB) service.InstanceDetail {
	d := catalogDetails(t)[0]
	if d.Location.Flag == "" {
		t.Fatalf("the location of the catalogue's first plan has no flag: %+v", d.Location)
	}
	return d
}

// handMadeDetail is an active instance with every part set, as a reader would picture one.
func handMadeDetail() service.InstanceDetail {
	var d service.InstanceDetail
	d.ID, d.Name, d.Status, d.Active, d.Hostname, d.PlanID = 7, "web-1", "online", true, "web-1.example", 3
	d.IPv4, d.IPv6, d.Renew, d.Note, d.OrderID = "192.0.2.7", "2001:db8::7", true, "<prod> & co", 12
	d.CreatedAt = time.Date(2026, 11, 30, 4, 5, 6, 789, time.FixedZone("IRST", 12600))
	d.RenewalDue = d.CreatedAt.Add(time.Hour)
	d.DatacenterID, d.LocationID, d.TemplateID = 1, 2, 4
	d.Username, d.Password, d.Port = "root", `p"w\d`, 22
	d.Costs, d.Paid, d.Recurring, d.IPChangeCost = money.Micros(417), money.USD(3), money.Micros(12_500_000), 0
	d.Plan = catalog.Plan{ID: 3, Name: catalog.Text{FA: "کوچک", EN: "small"}, Type: "vps", CPU: 2, MemoryGB: 4,
		DiskGB: 40, Actions: []string{"reboot", "rebuild"}}
	d.Datacenter = catalog.Datacenter{ID: 1, Name: catalog.Text{FA: "مرکز", EN: "dc"}, Status: catalog.StatusAvailable,
		Enabled: true, Snapshots: catalog.SnapshotSettings{Local: true, PricePerGBMonth: 10}}
	d.Location = catalog.Location{ID: 2, DatacenterID: 1, Name: catalog.Text{FA: "تهران"}, CountryCode: "IR", Flag: "🇮🇷"}
	d.Template = catalog.Template{ID: 4, Name: catalog.Text{EN: "Debian 12"}, OSType: "linux"}
	d.Features = []catalog.Feature{{ID: 9}, {ID: 10}}
	d.Traffic = service.Traffic{Enabled: true, IncludedGB: 1000, UsedGB: 1200, OverageGB: 200, CycleStart: d.CreatedAt}
	d.Apps = []service.AppRecord{{}}
	d.Apps[0].AppID, d.Apps[0].Status, d.Apps[0].App.Name = "nginx", "installed", catalog.Text{EN: "NGINX"}
	return d
}

// fillRandom sets v, and everything it holds, to random values: a field added to the service's
// detail is filled without a change here.
func fillRandom(rng *rand.Rand, v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(randomTime(rng)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkwardText[rng.IntN(len(awkwardText))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(randomInt(rng, v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(randomInt(rng, v.Type().Bits()-1)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(rng.IntN(1<<20)) / 8)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				fillRandom(rng, v.Field(i))
			}
		}
	case reflect.Slice:
		n := rng.IntN(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fillRandom(rng, v.Index(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range rng.IntN(3) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, k)
			fillRandom(rng, e)
			v.SetMapIndex(k, e)
		}
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fillRandom(rng, v.Elem())
		}
	}
}

// randomInt is 0, an extreme of the given width or a small number, each often.
func randomInt(rng *rand.Rand, bits int) int64 {
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64 >> (64 - bits)
	case 2:
		return math.MinInt64 >> (64 - bits)
	}
	return rng.Int64N(2_000_000) - 1_000_000
}

// randomTime is the zero time or an instant between 1970 and 2100 with nanoseconds, in UTC or
// another zone.
func randomTime(rng *rand.Rand) time.Time {
	if rng.IntN(4) == 0 {
		return time.Time{}
	}
	t := time.Unix(rng.Int64N(4_102_444_800), rng.Int64N(1e9))
	if rng.IntN(2) == 0 {
		return t.In(time.FixedZone("", (rng.IntN(27)-12)*3600))
	}
	return t.UTC()
}

// BenchmarkInstanceDetailAnswer: GET /instances/{id}'s answer built as the view and encoded by
// the API's encoder (as every other answer is), against appended by hand with the catalogue's
// entries from their JSON made beforehand (catalogJSON) and without, for an instance of the
// catalogue's first plan in Persian (the default language, whose names are not ASCII).
func BenchmarkInstanceDetailAnswer(b *testing.B) {
	d, made := catalogDetail(b), newCatalogJSON(catalog.New())
	var bufs bufferPool
	b.Run("view+encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf := bufs.get()
			_ = buf.encode(successBody{Success: true, Data: newInstanceDetailJSON(d, catalog.Persian)})
			bufs.put(buf)
		}
	})
	for name, j := range map[string]catalogJSON{"appended": {}, "appended+catalogue": made} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf := bufs.get()
				buf.Write(j.appendInstanceDetailAnswer(buf.AvailableBuffer(), &d, catalog.Persian))
				bufs.put(buf)
			}
		})
	}
}
