package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// nullTime stores the zero time as NULL, so "never" and "not yet" read as absent in SQL too.
// Times are written in UTC; timestamptz keeps the instant, to the microsecond.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// timeScanner collects the timestamp columns of a row and converts them after Scan: NULL is the
// zero time and every other value is returned in UTC (pgx would use the local zone), so a time
// reads back equal to the UTC time that was written.
type timeScanner struct {
	dst []*time.Time
	raw []*pgtype.Timestamptz
}

// at returns a Scan destination whose value parse later writes to t.
func (ts *timeScanner) at(t *time.Time) any {
	r := new(pgtype.Timestamptz)
	ts.dst = append(ts.dst, t)
	ts.raw = append(ts.raw, r)
	return r
}

func (ts *timeScanner) parse() {
	for i, r := range ts.raw {
		*ts.dst[i] = time.Time{}
		if r.Valid {
			*ts.dst[i] = r.Time.UTC()
		}
	}
}

// jsonText encodes a value kept in a JSONB column. nil slices and maps are written as empty
// ones so the column never holds null.
func jsonText[T any](v T, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("postgres: encode column: %w", err)
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

// fromJSON decodes a JSONB column into dst.
func fromJSON(text string, dst any) error {
	if err := json.Unmarshal([]byte(text), dst); err != nil {
		return fmt.Errorf("postgres: decode column %q: %w", text, err)
	}
	return nil
}

// limitArg is the LIMIT of a page: NULL (no limit) for a negative Limit, as store.All asks.
func limitArg(limit int) any {
	if limit < 0 {
		return nil
	}
	return limit
}
