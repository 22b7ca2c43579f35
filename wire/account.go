package wire

// The bodies of the account, its wallet and quotes, and of the service's own health and
// exchange rate (spec: Account, Wallet, Quote). The webhook's are in webhooks.go.

// Health is the body of GET /health (schema Health).
type Health struct {
	Status string `json:"status"`
	API    string `json:"api"`
}

// Dollar is the body of GET /api/dollar: what one US dollar costs in the reseller's local
// currency (schema Dollar). Price is a number in the schema, though the seeded rate is whole;
// it is a rate, not an amount of dollars, so not Money.
type Dollar struct {
	Base      string  `json:"base"`
	Currency  string  `json:"currency"`
	Price     float64 `json:"price"`
	UpdatedAt string  `json:"updated_at"`
}

// Account is the body of GET /account (schema Account).
type Account struct {
	ID                int64   `json:"id"`
	APIKeyHint        *string `json:"api_key_hint"`
	APIKeyCreatedAt   *string `json:"api_key_created_at"`
	WebhookConfigured bool    `json:"webhook_configured"`
	ServerLimit       int64   `json:"server_limit"`
	APIOrderLimit     int64   `json:"api_order_limit"`
	Language          string  `json:"language"`
}

// Balance is the body of GET /account/balance (schema Balance).
type Balance[M Money] struct {
	Balance               M        `json:"balance"`
	Debt                  M        `json:"debt"`
	Reserved              M        `json:"reserved"`
	Available             M        `json:"available"`
	HoursUntilBalanceZero *float64 `json:"hours_until_balance_zero"`
	ActiveInstances       int64    `json:"active_instances"`
	PendingOrders         int64    `json:"pending_orders"`
}

// Payment is a wallet top-up of GET /account/payments (schema Payment).
type Payment[M Money] struct {
	ID          int64   `json:"id"`
	Amount      M       `json:"amount"`
	PaymentType *string `json:"payment_type"`
	PaidAt      *string `json:"paid_at"`
}

// Quote is the answer of POST /quote (schema Quote).
type Quote[M Money] struct {
	ServerID          int64    `json:"server_id"`
	Term              string   `json:"term"`
	ActiveFeatures    []string `json:"active_features"`
	Cost              M        `json:"cost"`
	CreationFee       M        `json:"creation_fee"`
	Recurring         M        `json:"recurring"`
	Balance           M        `json:"balance"`
	Reserved          M        `json:"reserved"`
	SufficientBalance bool     `json:"sufficient_balance"`
	Difference        M        `json:"difference"`
}
