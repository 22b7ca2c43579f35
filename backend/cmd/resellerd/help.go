package main

import (
	"flag"

	"github.com/reseller/terraform-provider-reseller/backend/internal/cliflag"
)

// A command's -h/--help is answered by run with that command's flags (cliflag.WriteHelp) and
// exit code 0, not with the general usage.

// defaultText shows a flag's default as --help does (cliflag.DefaultText).
func defaultText(f *flag.Flag) string { return cliflag.DefaultText(f) }
