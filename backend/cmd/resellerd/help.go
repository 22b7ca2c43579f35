package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpRequest is a subcommand's -h/--help: run answers it with that subcommand's flags (see
// writeFlagHelp) and exit code 0, not with the general usage.
type helpRequest struct{ fs *flag.FlagSet }

func (h helpRequest) Error() string { return "help requested for " + h.fs.Name() }

func (h helpRequest) Unwrap() error { return flag.ErrHelp }

// writeFlagHelp lists every flag of fs with its argument, its meaning, its default and its
// RESELLER_ variable, in the order the flags are sorted by name.
func writeFlagHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: resellerd %s [flags]\n\n", fs.Name())
	fmt.Fprintln(w, "Every flag can also be set with its RESELLER_ variable; a flag on the command line wins.")
	fmt.Fprintln(w)
	fs.VisitAll(func(f *flag.Flag) {
		arg, meaning := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if arg != "" {
			head += " " + strings.ToUpper(arg)
		}
		fmt.Fprintf(w, "%s\n      %s\n      default: %s   variable: %s\n", head, meaning, defaultText(f), envName(f.Name))
	})
}

// defaultText shows a flag's default: "none" for an empty one, a string quoted so spaces show.
func defaultText(f *flag.Flag) string {
	switch {
	case f.DefValue == "":
		return "none"
	case strings.ContainsAny(f.DefValue, " \t"):
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}
