// Package stats holds the summaries the benchmarks print of repeated figures.
package stats

import "slices"

// Median is the middle of xs, the mean of the two middle ones for an even count; 0 for none.
// xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	mid := len(s) / 2
	if len(s)%2 == 0 {
		return (s[mid-1] + s[mid]) / 2
	}
	return s[mid]
}
