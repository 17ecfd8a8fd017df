package textpos

import (
	"errors"
	"io"
	"testing"
)

type testPrefix struct{}

func (testPrefix) Prefix() string { return "x" }

func TestParseError(t *testing.T) {
	kind := errors.New("bad number")
	pe := At[testPrefix]("a.gz", 12, 16, kind, "%q", "1x")
	if got, want := pe.Error(), `x: a.gz:12:16: bad number: "1x"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(pe, kind) {
		t.Error("ParseError does not unwrap to its kind")
	}
	if Wrap(kind, "") != kind {
		t.Error("Wrap with no format is not the kind itself")
	}
	if got, want := WithFile[testPrefix](&ParseError[testPrefix]{Line: 2, Err: kind}, "f").Error(), "x: f:2: bad number"; got != want {
		t.Errorf("WithFile(ParseError) = %q, want %q", got, want)
	}
	err := WithFile[testPrefix](io.ErrUnexpectedEOF, "f")
	if got, want := err.Error(), "x: f: unexpected EOF"; got != want || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("WithFile(other) = %q, want %q wrapping it", got, want)
	}
	if WithFile[testPrefix](nil, "f") != nil {
		t.Error("WithFile(nil) is not nil")
	}
	d := Detail(kind, "7")
	if got, want := d.Error(), "bad number: 7"; got != want || !errors.Is(d, kind) {
		t.Errorf("Detail = %q, want %q wrapping its error", got, want)
	}
}
