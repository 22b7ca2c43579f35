package sshd

import "strings"

// shellWords splits a command line into words as a POSIX shell would for a simple command:
// blanks separate words, single quotes keep everything, double quotes keep all but \" \\ \$
// and \`, and a backslash outside quotes keeps the next character. It returns false when the
// line needs a real shell: an unquoted operator, expansion or glob, or an unterminated quote.
func shellWords(line string) ([]string, bool) {
	var (
		words    []string
		word     strings.Builder
		inWord   bool
		escaped  bool // after a backslash outside quotes
		escapedQ bool // after a backslash inside double quotes
		quote    rune // 0, '\'' or '"'
	)
	for _, c := range line {
		switch {
		case escaped:
			word.WriteRune(c)
			escaped = false
		case escapedQ:
			if !strings.ContainsRune("$`\"\\\n", c) {
				word.WriteRune('\\')
			}
			word.WriteRune(c)
			escapedQ = false
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				word.WriteRune(c)
			}
		case quote == '"':
			switch c {
			case '"':
				quote = 0
			case '\\':
				escapedQ = true
			case '$', '`':
				return nil, false
			default:
				word.WriteRune(c)
			}
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			escaped, inWord = true, true
		case c == '#' && !inWord, strings.ContainsRune("|&;<>()$`*?[", c):
			return nil, false
		default:
			// A leading ~ stays: resolvePath expands it as the shell would.
			word.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 || escaped || escapedQ {
		return nil, false
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, true
}
