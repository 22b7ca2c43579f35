package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/imagebuild"
)

// imageCommand runs `resellerd image SUBCOMMAND`.
func imageCommand(ctx context.Context, args []string, stderr io.Writer, env lookupEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: image: no subcommand (build)", errUsage)
	}
	switch args[0] {
	case "build":
		return imageBuild(ctx, args[1:], stderr, env)
	default:
		return fmt.Errorf("%w: image: unknown subcommand %q", errUsage, args[0])
	}
}

// imageBuild runs `resellerd image build --out DIR [--suite bookworm] [--include PKG,...]
// [--apps wordpress,mysql] [--mirror URL]` (package imagebuild), its progress on stderr.
func imageBuild(ctx context.Context, args []string, stderr io.Writer, env lookupEnv) error {
	fs := flag.NewFlagSet("image build", flag.ContinueOnError)
	var o imagebuild.Options
	var include, apps string
	fs.StringVar(&o.Out, "out", "", "`DIR` the image is put at (built beside it and renamed into place; a failed build leaves nothing there)")
	fs.StringVar(&o.Suite, "suite", imagebuild.DefaultSuite, "the distribution's `SUITE` (noble with an Ubuntu --mirror)")
	fs.StringVar(&include, "include", "", "more packages, `PKG,...` (Recommends are not installed: name what a product needs)")
	fs.StringVar(&apps, "apps", "", "apps whose real products the image carries, `APP,...` (mysql, wordpress)")
	fs.StringVar(&o.Mirror, "mirror", "", "the archive's `URL` (default: this host's apt sources where they carry the suite, else deb.debian.org)")
	if err := parseFlags(fs, args, env); err != nil {
		return err
	}
	if o.Out == "" {
		return fmt.Errorf("%w: image build: --out is required", errUsage)
	}
	o.Include, o.Apps = splitList(include), splitList(apps)
	if _, err := o.Packages(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return imagebuild.New(stderr).Build(ctx, o)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var list []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list
}
