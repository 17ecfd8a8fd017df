package storage

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// shortWriter takes n bytes, then fails.
type shortWriter struct{ n int }

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	k := w.n
	w.n = 0
	return k, errors.New("disk full")
}

// TestSpool: what is written appears at Commit only, all of it; Discard
// drops it; a destination that fails says how much reached it.
func TestSpool(t *testing.T) {
	text := strings.Repeat("a line of output\n", 5000) // 85 KB
	var s Spool
	if _, err := io.WriteString(&s, text); err != nil {
		t.Fatal(err)
	}
	if s.Len() != int64(len(text)) {
		t.Errorf("Len %d, want %d", s.Len(), len(text))
	}
	var dst bytes.Buffer
	if err := s.Commit(&dst); err != nil || dst.String() != text {
		t.Fatalf("Commit: %v, %d bytes, want %d", err, dst.Len(), len(text))
	}
	s.Discard() // after Commit: nothing to do

	var d Spool
	io.WriteString(&d, text)
	d.Discard()
	if d.f != nil {
		t.Error("Discard kept the file")
	}

	var empty Spool
	if err := empty.Commit(&dst); err != nil || empty.f != nil {
		t.Errorf("empty spool: %v, file %v", err, empty.f)
	}

	var c Spool
	io.WriteString(&c, text)
	err := c.Commit(&shortWriter{n: 100})
	if err == nil || !strings.Contains(err.Error(), "cut after 100 of its 85000 bytes: disk full") {
		t.Errorf("Commit to a failing writer: %v", err)
	}
}
