// Package account implements the reseller_account and reseller_balance data sources: the
// calling account's settings and its wallet.
package account

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/reseller/terraform-provider-reseller/internal/tfutil"
)

const (
	// TypeName is the type name of the account data source.
	TypeName = "reseller_account"
	// BalanceTypeName is the type name of the wallet data source.
	BalanceTypeName = "reseller_balance"
)

var (
	_ datasource.DataSourceWithConfigure = (*DataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*BalanceDataSource)(nil)
)

// DataSource is reseller_account.
type DataSource struct {
	tfutil.DataSourceBase
}

// NewDataSource returns reseller_account.
func NewDataSource() datasource.DataSource { return &DataSource{} }

// Metadata sets the type name.
func (d *DataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = TypeName
}

// Schema describes reseller_account.
func (d *DataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = Schema()
}

// Read reads the account.
func (d *DataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	a, err := c.GetAccount(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to read the account", err)
		return
	}
	data := newAccount(*a)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// BalanceDataSource is reseller_balance.
type BalanceDataSource struct {
	tfutil.DataSourceBase
}

// NewBalanceDataSource returns reseller_balance.
func NewBalanceDataSource() datasource.DataSource { return &BalanceDataSource{} }

// Metadata sets the type name.
func (d *BalanceDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = BalanceTypeName
}

// Schema describes reseller_balance.
func (d *BalanceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = BalanceSchema()
}

// Read reads the wallet.
func (d *BalanceDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := d.Client(&resp.Diagnostics)
	if c == nil {
		return
	}
	b, err := c.GetBalance(ctx)
	if err != nil {
		tfutil.AddAPIError(&resp.Diagnostics, "Unable to read the wallet balance", err)
		return
	}
	data := newBalance(*b)
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
