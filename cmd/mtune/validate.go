package main

import (
	"flag"
	"strconv"
)

// positiveFlags refuses a typed-in zero or negative value of the named
// numeric flags: their zero value stands for a default only when the flag
// is not given, and nowhere a user can type it.
func positiveFlags(fs *flag.FlagSet, names ...string) error {
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil || !flagSet(fs, name) {
			continue
		}
		if v, err := strconv.ParseFloat(f.Value.String(), 64); err == nil && !(v > 0) {
			return usagef("--%s %s: must be positive (leave it out for the default)", name, f.Value.String())
		}
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
