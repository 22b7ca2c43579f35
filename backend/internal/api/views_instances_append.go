package api

import (
	"strconv"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
)

// GET /instances/{id}'s answer appended by hand, straight from the service's values, the
// catalogue's entries (plan, location, datacenter, template, in Persian by default) from their
// JSON made once (catalogJSON, views_instances_catalog.go), with the member appenders of
// json_append.go.
//
// It is the busiest answer of the API (a provider's refresh reads every server, and its waits
// poll this), and building its view and encoding it took a third of the handler's CPU in a
// profile of serve (bench/README.md, eighth round). The view stays the one definition of the
// shape: TestInstanceDetailAnswerAsEncoded holds appendInstanceDetailAnswer to the bytes the
// encoder writes for successBody{Success: true, Data: newInstanceDetailJSON(d, lang)}, for a
// hand-made instance, one of every plan and template of the catalogue, the zero one and a
// thousand filled at random by reflection (awkward strings, extreme numbers), in both
// languages, with the catalogue's JSON made once and without, so a member added to the view and
// not here, or written here in another order, fails it.

// appendInstanceDetailAnswer appends the success envelope around d's detail view, and the
// newline an Encoder ends with. The zero j appends every catalogue entry as it is.
func (j *catalogJSON) appendInstanceDetailAnswer(b []byte, d *service.InstanceDetail, lang catalog.Lang) []byte {
	b = append(b, `{"success":true,"data":`...)
	b = j.appendInstanceDetail(b, d, lang)
	return append(b, "}\n"...)
}

// appendInstanceDetail appends newInstanceDetailJSON(*d, lang) as JSON.
func (j *catalogJSON) appendInstanceDetail(b []byte, d *service.InstanceDetail, lang catalog.Lang) []byte {
	b = j.appendInstanceSummaryFields(b, d)
	b = append(b, `,"server_product":`...)
	b = j.appendProduct(b, &d.Plan, lang)
	b = append(b, `,"location":`...)
	b = j.appendLocation(b, &d.Location, lang)
	b = append(b, `,"datacenter":`...)
	b = j.appendDatacenter(b, &d.Datacenter, lang)
	b = append(b, `,"template":`...)
	b = j.appendTemplate(b, &d.Template, lang)
	b = append(b, `,"traffic":`...)
	b = appendTraffic(b, &d.Traffic)
	b = append(b, `,"credentials":`...)
	if d.Active {
		b = appendCredentials(b, d)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"apps":[`...)
	for i, a := range d.Apps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKeyString(b, `{"app_id":`, a.AppID)
		b = appendKeyString(b, `,"name":`, a.App.Name.In(lang))
		b = appendKeyString(b, `,"status":`, a.Status)
		b = append(b, '}')
	}
	b = appendKeyMoney(b, `],"ip_change_cost":`, d.IPChangeCost)
	b = append(b, `,"active_features":[`...)
	for i, f := range d.Features {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, f.ID, 10)
		b = append(b, '"')
	}
	b = appendKeyInt(b, `],"order_id":`, d.OrderID)
	b = appendKeyMoney(b, `,"recurring":`, d.Recurring)
	return append(b, '}')
}

// appendInstanceSummaryFields appends newInstanceSummaryJSON(*d)'s object without its closing
// brace, which the detail's own fields follow.
func (j *catalogJSON) appendInstanceSummaryFields(b []byte, d *service.InstanceDetail) []byte {
	b = appendKeyInt(b, `{"id":`, d.ID)
	b = appendKeyString(b, `,"name":`, d.Name)
	b = appendKeyOptional(b, `,"status":`, d.Status)
	b = appendKeyBool(b, `,"active":`, d.Active)
	b = appendKeyOptional(b, `,"hostname":`, d.Hostname)
	b = appendKeyInt(b, `,"server_product_id":`, d.PlanID)
	b = appendKeyOptional(b, `,"ipv4":`, d.IPv4)
	b = appendKeyOptional(b, `,"ipv6":`, d.IPv6)
	b = appendKeyString(b, `,"term":`, catalog.TermHourly)
	if d.Active {
		b = appendKeyTime(b, `,"renewal_due":`, d.RenewalDue)
	} else {
		b = append(b, `,"renewal_due":null`...)
	}
	b = appendKeyBool(b, `,"renew":`, d.Renew)
	b = appendKeyBool(b, `,"locked":`, d.Locked)
	b = appendKeyOptional(b, `,"lock_reason":`, d.LockReason)
	b = appendKeyTime(b, `,"created_at":`, d.CreatedAt)
	b = appendKeyTime(b, `,"expired_at":`, d.ExpiredAt)
	b = appendKeyID(b, `,"datacenter_id":`, d.DatacenterID)
	b = appendKeyID(b, `,"location_id":`, d.LocationID)
	b = appendKeyID(b, `,"template_id":`, d.TemplateID)
	b = appendKeyMoney(b, `,"costs":`, d.Costs)
	b = appendKeyMoney(b, `,"paid_amount":`, d.Paid)
	b = append(b, `,"actions":`...)
	b = j.appendActions(b, &d.Plan)
	b = appendKeyBool(b, `,"snapshots":`, d.Active && d.Datacenter.Snapshots.PricePerGBMonth > 0)
	return appendKeyOptional(b, `,"note":`, d.Note)
}

// appendProduct appends the server_product of newInstanceDetailJSON(d, lang) for d.Plan p.
func appendProduct(b []byte, p *catalog.Plan, lang catalog.Lang) []byte {
	b = appendKeyInt(b, `{"id":`, p.ID)
	b = appendKeyString(b, `,"name":`, p.Name.In(lang))
	b = appendKeyString(b, `,"type":`, p.Type)
	b = appendKeyInt(b, `,"cpu":`, int64(p.CPU))
	b = appendKeyInt(b, `,"memory":`, int64(p.MemoryGB))
	b = appendKeyInt(b, `,"disk":`, int64(p.DiskGB))
	return append(b, '}')
}

// appendActions appends a plan's actions as the summary's array of strings.
func appendActions(b []byte, actions []string) []byte {
	b = append(b, '[')
	for i, a := range actions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a)
	}
	return append(b, ']')
}

// appendLocation appends newLocationJSON(*l, lang) as JSON.
func appendLocation(b []byte, l *catalog.Location, lang catalog.Lang) []byte {
	b = appendKeyInt(b, `{"id":`, l.ID)
	b = appendKeyInt(b, `,"datacenter_id":`, l.DatacenterID)
	b = appendKeyString(b, `,"name":`, l.Name.In(lang))
	b = appendKeyString(b, `,"country":`, l.Country.In(lang))
	b = appendKeyString(b, `,"country_code":`, l.CountryCode)
	b = appendKeyOptional(b, `,"flag":`, l.Flag)
	b = appendKeyBool(b, `,"active":`, l.Active)
	b = appendKeyOptional(b, `,"status":`, l.Status)
	return append(b, '}')
}

// appendDatacenter appends newDatacenterJSON(*dc, lang) as JSON.
func appendDatacenter(b []byte, dc *catalog.Datacenter, lang catalog.Lang) []byte {
	b = appendKeyInt(b, `{"id":`, dc.ID)
	b = appendKeyString(b, `,"name":`, dc.Name.In(lang))
	b = appendKeyOptional(b, `,"description":`, dc.Description.In(lang))
	b = appendKeyOptional(b, `,"status":`, dc.Status)
	b = appendKeyBool(b, `,"enabled":`, dc.Enabled)
	b = appendKeyString(b, `,"terms":[{"term":`, catalog.TermHourly)
	b = appendKeyBool(b, `,"enabled":true}],"require_kyc":`, dc.RequireKYC)
	b = appendKeyBool(b, `,"local_snapshots":`, dc.Snapshots.Local)
	return append(b, '}')
}

// appendTemplate appends the template of newInstanceDetailJSON(d, lang) for d.Template t.
func appendTemplate(b []byte, t *catalog.Template, lang catalog.Lang) []byte {
	b = appendKeyInt(b, `{"id":`, t.ID)
	b = appendKeyString(b, `,"name":`, t.Name.In(lang))
	b = appendKeyString(b, `,"os_type":`, t.OSType)
	return append(b, '}')
}

// appendTraffic appends newTrafficJSON(*t) as JSON.
func appendTraffic(b []byte, t *service.Traffic) []byte {
	b = appendKeyBool(b, `{"enabled":`, t.Enabled)
	b = appendKeyInt(b, `,"included":`, int64(t.IncludedGB))
	b = appendKeyInt(b, `,"used":`, int64(t.UsedGB))
	b = appendKeyInt(b, `,"overage":`, int64(t.OverageGB))
	b = appendKeyBool(b, `,"allow_overage":`, t.AllowOverage)
	b = appendKeyTime(b, `,"cycle_start_date":`, t.CycleStart)
	return append(b, '}')
}

// appendCredentials appends newCredentialsIn's view of d's credentials as JSON.
func appendCredentials(b []byte, d *service.InstanceDetail) []byte {
	b = appendKeyOptional(b, `{"username":`, d.Username)
	if d.CredentialsPending {
		b = append(b, `,"password":null`...)
	} else {
		b = appendKeyOptional(b, `,"password":`, d.Password)
	}
	b = appendKeyID(b, `,"port":`, int64(d.Port))
	b = appendKeyOptional(b, `,"ipv4":`, d.IPv4)
	b = appendKeyOptional(b, `,"ipv6":`, d.IPv6)
	b = appendKeyBool(b, `,"pending":`, d.CredentialsPending)
	return append(b, '}')
}
