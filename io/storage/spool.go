package storage

import (
	"fmt"
	"io"
	"os"
)

// Spool holds what is written to it in a temporary file until Commit
// copies it to its destination, so that a command's standard output
// appears only once the command has succeeded: a failure part-way leaves
// no partial output (no partial file where the output is redirected).
// The file is created at the first Write in os.TempDir (TMPDIR) and
// unlinked at once where the system allows it, so memory stays flat
// whatever the output's size and nothing is left behind. The zero value
// is ready to use; Discard (safe after Commit) releases the file.
type Spool struct {
	f   *os.File
	n   int64
	err error // sticky
}

// Write appends p to the spool's file.
func (s *Spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "mtune-stdout-*")
		if err != nil {
			s.err = fmt.Errorf("storage: holding back standard output: %w", err)
			return 0, s.err
		}
		os.Remove(f.Name()) // where an open file cannot be removed, Discard removes it
		s.f = f
	}
	n, err := s.f.Write(p)
	s.n += int64(n)
	if err != nil {
		s.err = fmt.Errorf("storage: holding back standard output in %s: %w", s.f.Name(), err)
	}
	return n, s.err
}

// Len returns the number of bytes written to the spool.
func (s *Spool) Len() int64 { return s.n }

// Commit copies everything written to dst and releases the file. An error
// says how many of the bytes reached dst.
func (s *Spool) Commit(dst io.Writer) error {
	if s.err != nil || s.f == nil {
		return s.err
	}
	defer s.Discard()
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("storage: standard output held back in %s: %w", s.f.Name(), err)
	}
	n, err := io.Copy(dst, s.f)
	if err == nil && n != s.n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("storage: standard output cut after %d of its %d bytes: %w", n, s.n, err)
	}
	return nil
}

// Discard drops what was written and releases the file.
func (s *Spool) Discard() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}
