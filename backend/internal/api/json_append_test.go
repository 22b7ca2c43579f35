package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

// awkwardText are strings whose JSON encoding encoding/json decides with care: HTML characters,
// the line separators, every kind of control character, invalid and truncated UTF-8, a BOM,
// characters outside the BMP and a right-to-left script (the catalogue's Persian names).
var awkwardText = []string{
	"", "plain", `<script>&amp;</script>`, "line\u2028para\u2029", "tab\tnl\nnul\x00us\x1f del\x7f",
	"\b\f\r\v\x1b", "bad\xffutf8\xc3", "\xed\xa0\x80 surrogate", "🇮🇷 Tehran", `quote " backslash \ slash /`,
	"\ufeffbom", "تهران ۱", "\u2027\u202a\u2030",
}

// TestAppendJSONStringAsEncodingJSON: appendJSONString writes what encoding/json writes for
// every single byte, every byte before a multi-byte rune and after one (the ASCII copy and the
// UTF-8 check meet there), and the awkward strings.
func TestAppendJSONStringAsEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := append([]string{}, awkwardText...)
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"é\u2028z", "<é"+string([]byte{byte(c)})+"&z")
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("prefix"), s); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("%q: got %s, want %s", s, got[len("prefix"):], want)
		}
	}
}
