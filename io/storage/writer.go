package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gcs "cloud.google.com/go/storage"
)

// A Writer writes one file or object, compressing by extension, atomically:
// nothing is visible at its path until Close returns nil, and until then the
// previous content, if any, stays readable. A Writer is not safe for
// concurrent use.
//
// The usual pattern is
//
//	w, err := storage.Create(ctx, path)
//	if err != nil { … }
//	defer w.Abort() // no-op after a successful Close
//	… write …
//	return w.Close()
type Writer struct {
	path  string
	ctx   context.Context
	dst   io.Writer      // what Write writes to: comp, or sink if nil
	comp  io.WriteCloser // compressor, or nil
	sink  sink
	state writerState
	err   error // first write error, wrapped
}

type writerState int

const (
	writerOpen writerState = iota
	writerClosed
	writerAborted
)

// A sink is where the (compressed) bytes go until commit makes them visible
// at the path or abort discards them.
type sink interface {
	io.Writer
	commit() error
	abort() error
}

func newWriter(ctx context.Context, p string, s sink) (*Writer, error) {
	w := &Writer{path: p, ctx: ctx, sink: s, dst: s}
	comp, err := newCompressor(p, s)
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("storage: create %s: %w", p, err)
	}
	if comp != nil {
		w.comp, w.dst = comp, comp
	}
	return w, nil
}

// Write writes p, compressed if the path says so. Errors are sticky and name
// the path.
func (w *Writer) Write(p []byte) (int, error) {
	if err := w.usable("write"); err != nil {
		return 0, err
	}
	n, err := w.dst.Write(p)
	if err != nil {
		w.err = fmt.Errorf("storage: write %s: %w", w.path, err)
		return n, w.err
	}
	return n, nil
}

// usable returns the error of an operation op on a writer that is no longer
// open or has failed, or nil.
func (w *Writer) usable(op string) error {
	switch w.state {
	case writerClosed:
		return fmt.Errorf("storage: %s %s: %w", op, w.path, ErrClosed)
	case writerAborted:
		return fmt.Errorf("storage: %s %s: %w", op, w.path, ErrAborted)
	}
	return w.err
}

// Close finishes the compressed stream and makes the content visible at the
// path, replacing what was there. If anything failed before or during Close,
// including a cancelled context, Close discards the new content, leaves the
// previous one and returns the error. Close after Close or Abort returns an
// error wrapping ErrClosed or ErrAborted.
func (w *Writer) Close() error {
	switch w.state {
	case writerClosed, writerAborted:
		return w.usable("close")
	}
	w.state = writerClosed
	err := w.err
	if err == nil && w.comp != nil {
		if cerr := w.comp.Close(); cerr != nil {
			err = fmt.Errorf("storage: close %s: %w", w.path, cerr)
		}
	}
	if err == nil {
		if cerr := w.ctx.Err(); cerr != nil {
			err = fmt.Errorf("storage: close %s: %w", w.path, cerr)
		}
	}
	if err != nil {
		if aerr := w.sink.abort(); aerr != nil {
			err = errors.Join(err, fmt.Errorf("storage: discarding %s: %w", w.path, aerr))
		}
		return err
	}
	if err := w.sink.commit(); err != nil {
		return fmt.Errorf("storage: close %s: %w", w.path, err)
	}
	return nil
}

// Abort discards everything written and leaves the previous content of the
// path, if any. It may be called more than once, and after Close, where it
// does nothing and returns nil.
func (w *Writer) Abort() error {
	if w.state != writerOpen {
		return nil
	}
	w.state = writerAborted
	if g, ok := w.sink.(*gcsSink); ok {
		g.cancel() // stop the upload before anything else
	}
	if w.comp != nil {
		// Release the compressor. What it flushes goes to the sink, which
		// discards it next.
		w.comp.Close()
	}
	err := w.sink.abort()
	if err != nil {
		return fmt.Errorf("storage: abort %s: %w", w.path, err)
	}
	return nil
}

// tempMarker is in the names of the temporary files of local writes:
// ".NAME.mtune-tmp-RANDOM" beside NAME.
const tempMarker = ".mtune-tmp-"

// isTempName reports whether a local file name is that of a temporary file.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// localSink writes a temporary file in the directory of the path, then
// renames it over the path.
type localSink struct {
	path, tmp string
	f         *os.File // nil once closed
	bw        *bufio.Writer
	mode      fs.FileMode // permissions of the file being replaced
	keepMode  bool        // whether there was one
}

// newLocalSink creates the temporary file for a write to p. It is created
// with permissions 0666 less the umask, as os.Create would, unless p exists:
// then it keeps p's permissions.
func newLocalSink(p string) (*localSink, error) {
	s := &localSink{path: p}
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("storage: create %s: is a directory", p)
		}
		s.mode, s.keepMode = st.Mode().Perm(), true
	}
	dir, base := filepath.Split(p)
	// Like a GCS object, a local file may be created in a folder that does
	// not exist yet: the folders are made as they are on GCS, implicitly.
	if dir != "" {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, fmt.Errorf("storage: create %s: %w", p, err)
		}
	}
	if len(base) > 64 {
		base = base[:64]
	}
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+tempMarker+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			s.tmp, s.f = tmp, f
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, fmt.Errorf("storage: create %s: %w", p, err)
		}
	}
	s.bw = bufio.NewWriterSize(s.f, bufSize)
	return s, nil
}

func (s *localSink) Write(p []byte) (int, error) {
	if s.f == nil {
		return 0, ErrAborted
	}
	return s.bw.Write(p)
}

// commit flushes and syncs the temporary file and renames it over the path.
// On error it removes the temporary file.
func (s *localSink) commit() error {
	err := s.bw.Flush()
	if err == nil && s.keepMode {
		err = s.f.Chmod(s.mode)
	}
	if err == nil {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err == nil {
		err = os.Rename(s.tmp, s.path)
	}
	if err != nil {
		os.Remove(s.tmp)
		return err
	}
	// Make the rename itself durable. The new content is already visible,
	// so a failure here (some file systems cannot sync a directory) is not
	// reported.
	if d, err := os.Open(filepath.Dir(s.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// abort closes and removes the temporary file.
func (s *localSink) abort() error {
	if s.f == nil {
		return nil
	}
	s.f.Close()
	s.f = nil
	if err := os.Remove(s.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// gcsSink uploads to an object. The service makes the object visible only
// when the upload completes, at commit; abort cancels the upload's context,
// so the service never completes it. A Write or commit that waits for the
// upload the retrier's timeout without progress (a chunk sent) cancels it
// too: GCS is unreachable.
type gcsSink struct {
	w    *gcs.Writer
	rt   *retrier
	wd   *watchdog
	done bool
}

func newGCSSink(ctx context.Context, obj *gcs.ObjectHandle, contentType string, rt *retrier) *gcsSink {
	ctx, wd := rt.watch(ctx)
	w := obj.NewWriter(ctx)
	w.ContentType = contentType
	// The client's bound on retries (retrier.options) does not apply to
	// uploads: these are theirs.
	w.ChunkRetryDeadline = rt.timeout
	w.ProgressFunc = func(int64) { wd.kick() }
	return &gcsSink{w: w, rt: rt, wd: wd}
}

func (s *gcsSink) Write(p []byte) (int, error) {
	if s.done {
		return 0, ErrAborted
	}
	s.wd.arm()
	n, err := s.w.Write(p)
	s.wd.disarm()
	if err != nil {
		err = s.rt.cut(err)
	}
	return n, err
}

// cancel stops the upload.
func (s *gcsSink) cancel() { s.wd.stop() }

func (s *gcsSink) commit() error {
	s.done = true
	s.wd.arm()
	err := s.w.Close()
	s.wd.stop()
	if err != nil {
		err = s.rt.cut(err)
	}
	return err
}

func (s *gcsSink) abort() error {
	if s.done {
		return nil
	}
	s.done = true
	s.wd.stop()
	s.w.Close() // waits for the upload to stop; its error is the cancellation
	return nil
}
