// Package money holds amounts of US dollars as integer micro-USD so that the wallet, the ledger
// and every price add up exactly; a float never touches money.
package money

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PerUSD is the number of micro-USD in one dollar.
const PerUSD = 1_000_000

// Max is the largest amount resellerd takes in and the largest balance it keeps: 1,000,000,000
// USD. A top-up, an initial balance or an accept_cost above it, or a top-up that would take a
// balance above it, is refused as invalid input; staying this far below the int64 range
// (9,223,372,036,854 USD) leaves room for every sum of amounts the store computes.
const Max Micros = 1_000_000_000 * PerUSD

// fractionDigits is how many decimal places a micro-USD amount has.
const fractionDigits = 6

// Micros is an amount of money in micro-USD (1 USD = 1,000,000). It marshals to JSON as an exact
// decimal number in dollars, so clients see 12.5 rather than 12500000.
type Micros int64

// ErrInvalid is wrapped by every parse failure so callers can tell bad input from other errors.
var ErrInvalid = errors.New("invalid amount")

// USD converts whole dollars to micro-USD; it exists so seeded prices read naturally.
func USD(dollars int64) Micros { return Micros(dollars * PerUSD) }

// String renders the amount as an exact decimal in dollars with no trailing zeros: 12.5, 0.000417, -3.
func (m Micros) String() string { return string(m.AppendDecimal(make([]byte, 0, 24))) }

// AppendDecimal appends String's text to b, which is also the amount as a JSON number. It
// formats by hand, without fmt or a builder, because every answer that shows money marshals a
// few amounts: MarshalJSON then allocates only the bytes it returns (it allocated four times an
// amount through Sprintf and a builder).
func (m Micros) AppendDecimal(b []byte) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u // two's complement keeps math.MinInt64 correct
	}
	whole, frac := u/PerUSD, u%PerUSD
	b = strconv.AppendUint(b, whole, 10)
	if frac == 0 {
		return b
	}
	var digits [fractionDigits]byte
	last := -1 // the last digit that is not a trailing zero
	for i := fractionDigits - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		if last < 0 && digits[i] != '0' {
			last = i
		}
		frac /= 10
	}
	return append(append(b, '.'), digits[:last+1]...)
}

// MarshalJSON writes the amount as a JSON number in dollars, exactly.
func (m Micros) MarshalJSON() ([]byte, error) { return m.AppendDecimal(make([]byte, 0, 24)), nil }

// UnmarshalJSON reads a JSON number (or a string holding a decimal) in dollars, exactly.
func (m *Micros) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Parse reads a decimal amount of dollars ("50", "12.5", "-0.000417", "1.5e-3") into micro-USD.
// It rejects an amount that needs more than six fractional digits, since that cannot be booked
// exactly, and an amount outside the int64 range.
func Parse(s string) (Micros, error) {
	mantissa, exp, err := splitDecimal(s)
	if err != nil {
		return 0, err
	}
	neg := strings.HasPrefix(mantissa, "-")
	digits := strings.TrimPrefix(mantissa, "-")
	// digits × 10^exp dollars = digits × 10^(exp+6) micros.
	shift := exp + fractionDigits
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 {
			cut = 0
		}
		if strings.Trim(digits[cut:], "0") != "" {
			return 0, fmt.Errorf("%w: %q has more than %d fractional digits", ErrInvalid, s, fractionDigits)
		}
		digits = digits[:cut]
		shift = 0
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, nil
	}
	if len(digits)+shift > 19 {
		return 0, fmt.Errorf("%w: %q is out of range", ErrInvalid, s)
	}
	u, err := strconv.ParseUint(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil || u > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %q is out of range", ErrInvalid, s)
	}
	if neg {
		return Micros(-int64(u)), nil
	}
	return Micros(u), nil
}

// splitDecimal validates s as a JSON-style number and returns its digits (with a leading "-" when
// negative, the decimal point removed) and the power of ten they are scaled by.
func splitDecimal(s string) (mantissa string, exp int, err error) {
	bad := func() (string, int, error) {
		return "", 0, fmt.Errorf("%w: %q is not a decimal number", ErrInvalid, s)
	}
	rest := s
	sign := ""
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	if i := strings.IndexAny(rest, "eE"); i >= 0 {
		e, convErr := strconv.Atoi(strings.TrimPrefix(rest[i+1:], "+"))
		if convErr != nil || e > 100 || e < -100 || rest[i+1:] == "" {
			return bad()
		}
		exp, rest = e, rest[:i]
	}
	intPart, fracPart, hasDot := strings.Cut(rest, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(fracPart) || (hasDot && fracPart == "") {
		return bad()
	}
	return sign + intPart + fracPart, exp - len(fracPart), nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
