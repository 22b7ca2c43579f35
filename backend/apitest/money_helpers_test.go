package apitest

import (
	"math"

	"github.com/reseller/terraform-provider-reseller/backend/internal/money"
)

// dollars is an amount of an api view as the API writes it, in dollars, so a test compares it
// with the dollar figures of the spec's examples exactly as it did when it decoded floats: the
// correctly rounded quotient of the micro-USD is the double nearest the decimal on the wire.
func dollars(m money.Micros) float64 { return float64(m) / money.PerUSD }

// usd is a dollar figure as micro-USD, for a whole view a test compares field by field.
func usd(d float64) money.Micros { return money.Micros(math.Round(d * money.PerUSD)) }
