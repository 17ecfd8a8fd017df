package rundir

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/mtune/mtune/io/storage"
)

// RunLog is the slog handler of a tuning run: every record (Info and up)
// goes to the run's log (Layout.Log, run.log), kept in memory and written
// to the run folder at the end (Save); warnings go to the terminal as
// well. Errors do not: during a run they are the runner's and the SDK
// harness's reports of a failed bundle or job, which repeat the
// pipeline's error (mtune's own errors are returned, not logged, and the
// command prints the cause last, on one line).
type RunLog struct {
	mu     *sync.Mutex
	buf    *bytes.Buffer
	file   slog.Handler // into buf
	stderr slog.Handler
}

// maxRunLog bounds the log kept in memory: the last bytes are kept.
const maxRunLog = 8 << 20

// NewRunLog returns an empty run's log whose warnings go to stderr as
// well.
func NewRunLog(stderr io.Writer) *RunLog {
	l := &RunLog{mu: &sync.Mutex{}, buf: &bytes.Buffer{}}
	l.file = slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelInfo})
	l.stderr = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})
	return l
}

// lockedWriter appends to the log's buffer, trimming its front.
type lockedWriter struct{ l *RunLog }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	w.l.buf.Write(p)
	if n := w.l.buf.Len() - maxRunLog; n > 0 {
		w.l.buf.Next(n)
	}
	return len(p), nil
}

// Enabled implements slog.Handler: records of Info and up.
func (l *RunLog) Enabled(ctx context.Context, level slog.Level) bool { return level >= slog.LevelInfo }

// Handle implements slog.Handler: r to the log, and to the terminal if
// it is a warning.
func (l *RunLog) Handle(ctx context.Context, r slog.Record) error {
	err := l.file.Handle(ctx, r)
	if r.Level >= slog.LevelWarn && r.Level < slog.LevelError {
		if e := l.stderr.Handle(ctx, r); err == nil {
			err = e
		}
	}
	return err
}

// WithAttrs implements slog.Handler.
func (l *RunLog) WithAttrs(as []slog.Attr) slog.Handler {
	c := *l
	c.file, c.stderr = l.file.WithAttrs(as), l.stderr.WithAttrs(as)
	return &c
}

// WithGroup implements slog.Handler.
func (l *RunLog) WithGroup(name string) slog.Handler {
	c := *l
	c.file, c.stderr = l.file.WithGroup(name), l.stderr.WithGroup(name)
	return &c
}

// Detail adds a failed pipeline's whole report to the log.
func (l *RunLog) Detail(s string) {
	lockedWriter{l}.Write([]byte("\n== the failed pipeline's report ==\n" + s + "\n"))
}

// Save stores the log at path (atomically), after the log of an earlier
// session of the run (a resumed run keeps the log of the one it resumes).
func (l *RunLog) Save(ctx context.Context, path string) error {
	l.mu.Lock()
	data := bytes.Clone(l.buf.Bytes())
	l.mu.Unlock()
	if old, err := storage.ReadFile(ctx, path); err == nil {
		if n := len(old) + len(data) - maxRunLog; n > 0 {
			old = old[min(n, len(old)):]
		}
		data = append(old, data...)
	}
	return storage.WriteFile(ctx, path, data)
}
