package console

import "strings"

// Redacted stands for a console's token wherever a path would show it.
const Redacted = "[redacted]"

// RedactPath is path with a console token replaced by Redacted: /console/{token}/ws becomes
// /console/[redacted]/ws. Every other path is returned as it is. The access log and dev's
// journal write paths through it, because the token opens a console.
func RedactPath(path string) string {
	rest, ok := strings.CutPrefix(path, Prefix)
	if !ok || rest == "" {
		return path
	}
	_, tail, found := strings.Cut(rest, "/")
	if !found {
		return Prefix + Redacted
	}
	return Prefix + Redacted + "/" + tail
}
