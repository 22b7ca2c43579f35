// Package cliflag is how resellerd reads its command line: every flag also set by its RESELLER_
// variable (the command line wins), a command's --help listing its flags with their defaults and
// variables, and the flag values the standard library lacks (dollars without floats, address
// ranges, numbers and choices that know whether they were given). cmd/resellerd declares the
// flags; this package holds what they share.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ErrUsage marks a mistake in a command line: a flag Parse refuses, or a value a command refuses
// once parsed (a --db or --state file dev will not use, a --pprof that is not loopback). resellerd
// answers it with exit code 2 and the command's usage text. It lives here, below every command's
// package, so the commands and their checks wrap one error without importing one another.
var ErrUsage = errors.New("usage")

// LookupEnv is os.LookupEnv; tests pass a map.
type LookupEnv func(string) (string, bool)

// EnvName is the variable of a flag: --rate-limit-scale reads RESELLER_RATE_LIMIT_SCALE.
func EnvName(flagName string) string {
	return "RESELLER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Parse parses args into fs, then fills each flag not given on the command line from its
// RESELLER_ variable. Positional arguments are refused: every option is named. A mistake is
// errUsage wrapped, naming the command and the flag or variable; -h or --help is a HelpRequest.
func Parse(fs *flag.FlagSet, args []string, env LookupEnv, errUsage error) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return HelpRequest{fs}
		}
		return fmt.Errorf("%w: %s: %w", errUsage, fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s: unexpected argument %q", errUsage, fs.Name(), fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		name := EnvName(f.Name)
		if v, ok := env(name); ok {
			if setErr := fs.Set(f.Name, v); setErr != nil {
				err = fmt.Errorf("%w: %s: %w", errUsage, name, setErr)
			}
		}
	})
	return err
}

// HelpRequest is a command's -h/--help: it is answered with that command's flags (WriteHelp)
// and exit code 0, not with the general usage.
type HelpRequest struct{ FlagSet *flag.FlagSet }

func (h HelpRequest) Error() string { return "help requested for " + h.FlagSet.Name() }

func (h HelpRequest) Unwrap() error { return flag.ErrHelp }

// WriteHelp lists every flag of fs with its argument, its meaning, its default and its
// RESELLER_ variable, in the order the flags are sorted by name.
func WriteHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: resellerd %s [flags]\n\n", fs.Name())
	fmt.Fprintln(w, "Every flag can also be set with its RESELLER_ variable; a flag on the command line wins.")
	fmt.Fprintln(w)
	fs.VisitAll(func(f *flag.Flag) {
		arg, meaning := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if arg != "" {
			head += " " + strings.ToUpper(arg)
		}
		fmt.Fprintf(w, "%s\n      %s\n      default: %s   variable: %s\n", head, meaning, DefaultText(f), EnvName(f.Name))
	})
}

// DefaultText shows a flag's default: "none" for an empty one, a string quoted so spaces show.
func DefaultText(f *flag.Flag) string {
	switch {
	case f.DefValue == "":
		return "none"
	case strings.ContainsAny(f.DefValue, " \t"):
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}
