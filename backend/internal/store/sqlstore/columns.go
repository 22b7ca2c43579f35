package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"
)

// How values of Go types are written to and read from the columns of both dialects.

// nullTime stores the zero time as NULL, so "never" and "not yet" read as absent in SQL too.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// timeColumn scans a time column of either dialect into *t: NULL is the zero time, a
// timestamptz is converted to UTC (the driver would use the local zone) and SQLite's TEXT is
// parsed from timeLayout, so a time reads back equal to the UTC time that was written.
type timeColumn struct{ t *time.Time }

// at returns the Scan destination of the time column that fills t.
func at(t *time.Time) timeColumn { return timeColumn{t: t} }

func (c timeColumn) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
	case time.Time:
		*c.t = v.UTC()
	case string:
		return c.parse(v)
	case []byte:
		return c.parse(string(v))
	default:
		return fmt.Errorf("sqlstore: time column holds %T", src)
	}
	return nil
}

func (c timeColumn) parse(text string) error {
	t, err := time.Parse(timeLayout, text)
	if err != nil {
		return fmt.Errorf("sqlstore: bad timestamp %q: %w", text, err)
	}
	*c.t = t
	return nil
}

// jsonText encodes a value kept in a JSON column. nil slices and maps are written as empty
// ones so the column never holds null.
func jsonText[T any](v T, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sqlstore: encode column: %w", err)
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

// jsonColumn scans a JSON column and decodes it into dst.
type jsonColumn struct{ dst any }

func (c jsonColumn) Scan(src any) error {
	var text []byte
	switch v := src.(type) {
	case string:
		text = []byte(v)
	case []byte:
		text = v
	default:
		return fmt.Errorf("sqlstore: JSON column holds %T", src)
	}
	if err := json.Unmarshal(text, c.dst); err != nil {
		return fmt.Errorf("sqlstore: decode column %q: %w", text, err)
	}
	return nil
}
