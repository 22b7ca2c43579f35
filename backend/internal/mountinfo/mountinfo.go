// Package mountinfo reads the fields of /proc/PID/mountinfo (proc(5)), shared by the machines'
// cgroups (their mount points) and the image builder (the mounts a killed build left).
package mountinfo

import (
	"strconv"
	"strings"
)

// Unescape undoes the octal escapes the kernel writes in mountinfo's paths: \040 for a space,
// \011 a tab, \012 a newline, \134 a backslash. A backslash not followed by three octal digits
// is kept as it is.
func Unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
