// Package cliflag holds the command-line conventions mtune's commands share
// beyond Go's flag package: a flag given several times (List), several
// values after one flag as Moses users write them (ExpandMulti), and flags
// after positional arguments as GNU tools take them (ParseInterspersed).
package cliflag

import (
	"flag"
	"strings"
)

// List is a flag that may be given several times; each value is added.
type List []string

func (l *List) String() string { return strings.Join(*l, " ") }

func (l *List) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// ExpandMulti rewrites "--name a b c" as "--name a --name b --name c" for the
// flags in multi, so that a shell glob after such a flag works as Moses
// users expect (--nbest run*/nbest.gz). A value that starts with "-" ends
// the list.
func ExpandMulti(args []string, multi []string) []string {
	if len(multi) == 0 {
		return args
	}
	isMulti := func(a string) (string, bool) {
		name := strings.TrimLeft(a, "-")
		if name == a || strings.Contains(name, "=") {
			return "", false
		}
		for _, m := range multi {
			if name == m {
				return a, true
			}
		}
		return "", false
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		flagTok, ok := isMulti(a)
		if !ok {
			out = append(out, a)
			continue
		}
		n := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			out = append(out, flagTok, args[i])
			n++
		}
		if n == 0 {
			out = append(out, a) // let the flag package report the missing value
		}
	}
	return out
}

// ParseInterspersed parses args with fs, allowing flags after positional
// arguments (mtune score HYP -r REF) as GNU tools do. Everything after "--"
// is positional.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(positional, rest...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
