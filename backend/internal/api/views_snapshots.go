package api

import (
	"time"

	"github.com/reseller/terraform-provider-reseller/backend/internal/catalog"
	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
	"github.com/reseller/terraform-provider-reseller/backend/internal/service"
	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// The JSON bodies of snapshots (spec: Snapshot).

type createSnapshotRequestJSON struct {
	Name *string `json:"name"`
}

type updateSnapshotRequestJSON struct {
	Name *string `json:"name"`
	Note *string `json:"note"`
}

// SnapshotView is a snapshot as GET /snapshots/{id} returns it (schema Snapshot).
type SnapshotView struct {
	ID              int64         `json:"id"`
	Name            string        `json:"name"`
	Status          string        `json:"status"`
	Note            *string       `json:"note"`
	Locked          bool          `json:"locked"`
	LockReason      *string       `json:"lock_reason"`
	SizeGB          *float64      `json:"size_gb"` // a number in the schema
	Price           *money.Micros `json:"price"`
	PriceMonthly    *money.Micros `json:"price_monthly"`
	Term            string        `json:"term"`
	Accrued         *money.Micros `json:"accrued"`
	RenewalDue      *string       `json:"renewal_due"`
	CreatedAt       *string       `json:"created_at"`
	AvailableAt     *string       `json:"available_at"`
	ExpiredAt       *string       `json:"expired_at"`
	InstanceID      *int64        `json:"instance_id"`
	DatacenterID    *int64        `json:"datacenter_id"`
	LocationID      *int64        `json:"location_id"`
	TemplateID      *int64        `json:"template_id"`
	ServerProductID *int64        `json:"server_product_id"`
	OSType          *string       `json:"os_type"`
	SourceName      *string       `json:"source_name"`
	Features        []string      `json:"features"`
	Local           bool          `json:"local"`
	Restore         bool          `json:"restore"`
	PaidAmount      *money.Micros `json:"paid_amount"` // nullable in the schema; the server always sends it
	// Architecture is the CPU architecture of the image; it only builds servers of the same.
	Architecture string `json:"architecture"`
}

// newSnapshotJSON shows size, price and accrual once the image exists (null while creating or
// when it failed), renewal_due only while the snapshot is billed, and instance_id only while
// the source instance is active.
func newSnapshotJSON(v service.SnapshotView, lang catalog.Lang) SnapshotView {
	out := SnapshotView{
		ID: v.ID, Name: v.Name, Status: v.Status, Note: optional(v.Note), Locked: v.Locked, LockReason: optional(v.LockReason),
		Term: catalog.TermHourly, CreatedAt: optionalTime(v.CreatedAt), AvailableAt: optionalTime(v.AvailableAt),
		ExpiredAt: optionalTime(v.ExpiredAt), DatacenterID: optionalID(v.DatacenterID), LocationID: optionalID(v.LocationID),
		TemplateID: optionalID(v.TemplateID), ServerProductID: optionalID(v.PlanID), OSType: optional(v.OSType),
		SourceName: optional(v.SourceName), Features: make([]string, 0, len(v.Features)), Local: v.Local,
		Restore: v.Settings.Restore, PaidAmount: &v.Paid, Architecture: v.Architecture,
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

// snapshotSettingsJSON is meta.settings of GET /instances/{id}/snapshots (README: choices).
type snapshotSettingsJSON struct {
	PricePerGBMonth money.Micros `json:"price_per_gb_month"`
	Term            string       `json:"term"`
	TermHours       int          `json:"term_hours"`
	MaxPerInstance  int          `json:"max_per_instance"`
	CrossLocation   bool         `json:"cross_location"`
	Restore         bool         `json:"restore"`
	Local           bool         `json:"local"`
	HoursPerMonth   int          `json:"hours_per_month"`
}

type instanceSnapshotsMeta struct {
	Settings *snapshotSettingsJSON `json:"settings"`
}

func newSnapshotSettingsJSON(s *catalog.SnapshotSettings) *snapshotSettingsJSON {
	if s == nil {
		return nil
	}
	return &snapshotSettingsJSON{PricePerGBMonth: s.PricePerGBMonth, Term: catalog.TermHourly, TermHours: int(catalog.BillingHour / time.Hour),
		MaxPerInstance: s.PerInstanceCap, CrossLocation: s.CrossLocation, Restore: s.Restore, Local: s.Local,
		HoursPerMonth: catalog.HoursPerMonth}
}
