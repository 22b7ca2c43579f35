package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// nullTime stores the zero time as NULL, so "never" and "not yet" read as absent in SQL too.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}

// parseNullTime reads a nullable timestamp column; NULL is the zero time.
func parseNullTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTime(s.String)
}

// jsonText encodes a value kept in a JSON text column. nil slices and maps are written as empty
// ones so the column never holds "null".
func jsonText[T any](v T, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sqlite: encode column: %w", err)
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

// fromJSON decodes a JSON text column into dst.
func fromJSON(text string, dst any) error {
	if err := json.Unmarshal([]byte(text), dst); err != nil {
		return fmt.Errorf("sqlite: decode column %q: %w", text, err)
	}
	return nil
}

// timeScanner collects the nullable timestamp columns of a row and parses them after Scan.
type timeScanner struct {
	dst []*time.Time
	raw []*sql.NullString
}

// at returns a Scan destination whose value parse later writes to t.
func (ts *timeScanner) at(t *time.Time) any {
	s := new(sql.NullString)
	ts.dst = append(ts.dst, t)
	ts.raw = append(ts.raw, s)
	return s
}

func (ts *timeScanner) parse() error {
	for i, s := range ts.raw {
		t, err := parseNullTime(*s)
		if err != nil {
			return err
		}
		*ts.dst[i] = t
	}
	return nil
}
