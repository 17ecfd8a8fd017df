// Package textpos formats positions in text files for the error messages
// of mtune's parsers, so that every format reports them alike:
//
//	nbest: run1.nbest.gz:12:16: bad feature value "1x"
//	weights: line 3, column 5: bad number
package textpos

import "strconv"

// Format returns "pkg: file:line:column: err", leaving out what is unknown:
// a zero line or column, an empty file (then "line L, column C").
func Format(pkg, file string, line, column int, err error) string {
	loc := file
	switch {
	case file == "" && line > 0 && column > 0:
		loc = "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(column)
	case file == "" && line > 0:
		loc = "line " + strconv.Itoa(line)
	case line > 0 && column > 0:
		loc += ":" + strconv.Itoa(line) + ":" + strconv.Itoa(column)
	case line > 0:
		loc += ":" + strconv.Itoa(line)
	}
	msg := "<nil>"
	if err != nil {
		msg = err.Error()
	}
	if loc == "" {
		return pkg + ": " + msg
	}
	return pkg + ": " + loc + ": " + msg
}
