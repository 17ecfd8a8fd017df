// Package textpos formats positions in text files for the error messages
// of mtune's parsers, and holds the sentinel errors they share (ErrSyntax,
// ErrNumber, …), so that every format reports them alike:
//
//	nbest: run1.nbest.gz:12:16: bad feature value "1x"
//	weights: line 3, column 5: bad number
//
// An error never quotes a whole line of the file: it gives the position and
// what was expected, and at most a short token through Quote.
//
// The parsers also share how they read text: LineReader for the lines,
// Separators to trim them and cut them into tokens.
package textpos

import "strconv"

// MaxQuoted is the most runes of a token Quote keeps.
const MaxQuoted = 16

// Quote returns tok quoted for an error message, as strconv.Quote does,
// cut to MaxQuoted runes with "…" when longer, so that an error shows
// which token is bad ("1x", "maison") without printing the file's content.
func Quote[T ~string | ~[]byte](tok T) string {
	s := string(tok)
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

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
