package serverflags

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// ErrUsage marks a command line the flag package already explained.
var ErrUsage = errors.New("usage")

// Parse parses args, which are --name=value flags only, into fs and
// returns the names the command line set. A bad flag is ErrUsage (fs has
// printed why); -h is flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) (set map[string]bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, ErrUsage
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (flags are --name=value)", fs.Args())
	}
	set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set, nil
}

// Main runs a server command's run with the process's arguments,
// environment and streams, under a context that SIGTERM or SIGINT ends, and
// exits: 0 after -h (the usage went to stderr, as asked), 2 for ErrUsage, 1
// with "name: error" on stderr for any other error.
func Main(name string, run func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
