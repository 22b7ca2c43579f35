package account

import (
	"testing"

	"github.com/reseller/terraform-provider-reseller/internal/client"
	"github.com/reseller/terraform-provider-reseller/internal/tfutil/schemacheck"
)

func TestModelsMatchSchemas(t *testing.T) {
	hint := "rk_abc"
	schemacheck.DataSource(t, "reseller_account", Schema(), newAccount(client.Account{ID: 1, APIKeyHint: &hint, ServerLimit: 10, Language: "en"}))
	hours := 12.5
	schemacheck.DataSource(t, "reseller_balance", BalanceSchema(), newBalance(client.Balance{Balance: 100, Available: 100, HoursUntilBalanceZero: &hours}))
	if got := newBalance(client.Balance{}).HoursUntilBalanceZero; !got.IsNull() {
		t.Errorf("hours_until_balance_zero without an estimate: got %v, want null", got)
	}
}
