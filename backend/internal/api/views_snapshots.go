package api

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
	"github.com/reseller/terraform-provider-reseller/wire"
)

// The JSON bodies of snapshots (spec: Snapshot) live in the wire package, shared with the
// provider's client; the views are their money.Micros instances, converted into here.
type (
	SnapshotView         = wire.Snapshot[money.Micros]
	snapshotSettingsJSON = wire.SnapshotSettings[money.Micros]
)

// newSnapshotJSON shows size, price and accrual once the image exists (null while creating or
// when it failed), renewal_due only while the snapshot is billed, and instance_id only while
// the source instance is active.
func newSnapshotJSON(v service.SnapshotView, lang catalog.Lang) SnapshotView {
	arch := v.Architecture
	out := SnapshotView{
		ID: v.ID, Name: v.Name, Status: v.Status, Note: optional(v.Note), Locked: v.Locked, LockReason: optional(v.LockReason),
		Term: catalog.TermHourly, CreatedAt: optionalTime(v.CreatedAt), AvailableAt: optionalTime(v.AvailableAt),
		ExpiredAt: optionalTime(v.ExpiredAt), DatacenterID: optionalID(v.DatacenterID), LocationID: optionalID(v.LocationID),
		TemplateID: optionalID(v.TemplateID), ServerProductID: optionalID(v.PlanID), OSType: optional(v.OSType),
		SourceName: optional(v.SourceName), Features: make([]string, 0, len(v.Features)), Local: v.Local,
		Restore: v.Settings.Restore, PaidAmount: &v.Paid, Architecture: &arch,
	}
	if v.SourceActive {
		out.InstanceID = optionalID(v.InstanceID)
	}
	if !v.AvailableAt.IsZero() {
		size, price, monthly, accrued := float64(v.SizeGB), v.Price, v.PriceMonthly, v.Accrued
		out.SizeGB, out.Price, out.PriceMonthly, out.Accrued = &size, &price, &monthly, &accrued
	}
	if v.Status == store.SnapshotAvailable || v.Status == store.SnapshotRestoring {
		out.RenewalDue = optionalTime(v.RenewalDue)
	}
	for _, f := range v.Features {
		out.Features = append(out.Features, f.Name.In(lang))
	}
	return out
}

func newSnapshotsJSON(list []service.SnapshotView, lang catalog.Lang) []SnapshotView {
	out := make([]SnapshotView, 0, len(list))
	for _, v := range list {
		out = append(out, newSnapshotJSON(v, lang))
	}
	return out
}

// instanceSnapshotsMeta is the meta of GET /instances/{id}/snapshots (README: choices).
type instanceSnapshotsMeta struct {
	Settings *snapshotSettingsJSON `json:"settings"`
}

func newSnapshotSettingsJSON(s *catalog.SnapshotSettings) *snapshotSettingsJSON {
	if s == nil {
		return nil
	}
	return &snapshotSettingsJSON{PricePerGBMonth: s.PricePerGBMonth, Term: catalog.TermHourly, TermHours: int64(catalog.BillingHour / time.Hour),
		MaxPerInstance: int64(s.PerInstanceCap), CrossLocation: s.CrossLocation, Restore: s.Restore, Local: s.Local,
		HoursPerMonth: int64(catalog.HoursPerMonth)}
}
