package storage

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	gcs "cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
)

// gcsScheme starts every GCS path.
const gcsScheme = "gs://"

// Sentinel errors returned, wrapped, by a Writer used after Abort or Close.
var (
	ErrAborted = errors.New("storage: write aborted")
	ErrClosed  = errors.New("storage: writer already closed")
)

// FS opens, creates and lists local and GCS paths. The package functions
// (Open, Create, …) use a default FS whose client SetGCSClient sets. An FS is
// safe for concurrent use and must not be copied after first use.
type FS struct {
	// GCS is the client used for gs:// paths. If nil, a client is made on the
	// first gs:// use with storage.NewClient (application default
	// credentials; STORAGE_EMULATOR_HOST is honoured) and kept for later
	// uses. Set it before the FS is first used.
	GCS *gcs.Client
	// Timeout bounds every GCS request (opening, reading, stating,
	// listing, walking, removing, each upload, and the versioned reads,
	// writes and removes of leases and pointers): once its retries have
	// lasted that long, the last transient error is returned, as "storage:
	// open gs://b/o: GCS unreachable after N attempts in 2m0s: …"; a call
	// left unanswered that long (an upload or a read: without progress
	// that long) is cut, as "…: GCS unreachable: no answer in 2m0s: …".
	// Zero means DefaultTimeout.
	Timeout time.Duration
	// Logger receives a warning for each retried GCS request; nil means
	// slog.Default().
	Logger *slog.Logger

	mu   sync.Mutex
	lazy *gcs.Client
}

// DefaultTimeout bounds the retries of one GCS request when FS.Timeout is
// zero.
const DefaultTimeout = 2 * time.Minute

// SetGCSTimeout sets the Timeout of the FS the package functions use; zero
// restores DefaultTimeout.
func SetGCSTimeout(d time.Duration) {
	defaultFS.mu.Lock()
	defaultFS.Timeout = d
	defaultFS.mu.Unlock()
}

// retrier bounds, counts and logs the retries of one GCS operation on one
// path. The client's own bound (options) stops retrying once the timeout
// has passed, but it waits for an attempt without limit and does not
// apply to uploads at all; a watchdog on the operation's context
// (watch, bound) cuts a call into the client that has waited the
// timeout without an answer.
type retrier struct {
	op, path string
	timeout  time.Duration
	log      *slog.Logger

	mu        sync.Mutex
	attempts  int   // failed attempts judged retryable or not
	transient bool  // whether the last failure was retryable
	last      error // the last failure
	expired   bool  // a watchdog cut a call that waited the timeout
}

func (f *FS) retrier(op, p string) *retrier {
	f.mu.Lock()
	timeout, log := f.Timeout, f.Logger
	f.mu.Unlock()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if log == nil {
		log = slog.Default()
	}
	return &retrier{op: op, path: p, timeout: timeout, log: log}
}

// options are the client's retry options: the client's own test of which
// errors are transient, a backoff that fits the timeout, and no retry
// started after it.
func (r *retrier) options() []gcs.RetryOption {
	return []gcs.RetryOption{
		gcs.WithMaxRetryDuration(r.timeout),
		gcs.WithBackoff(gax.Backoff{Initial: min(time.Second, r.timeout/16), Max: min(30*time.Second, r.timeout/4), Multiplier: 2}),
		gcs.WithErrorFuncWithContext(func(err error, _ *gcs.RetryContext) bool {
			retry := gcs.ShouldRetry(err)
			r.mu.Lock()
			r.attempts++
			n := r.attempts
			r.transient, r.last = retry, err
			r.mu.Unlock()
			if retry {
				r.log.Warn("storage: GCS request failed; retrying", "op", r.op, "path", r.path, "attempt", n, "err", err)
			}
			return retry
		}),
	}
}

// always are the options of an operation that is safe to repeat although
// the client does not know it: retried as transient errors come.
func (r *retrier) always() []gcs.RetryOption {
	return append(r.options(), gcs.WithPolicy(gcs.RetryAlways))
}

// watchdog cancels the context of a GCS operation when a call into the
// client, between arm and disarm, has waited the retrier's timeout with no
// progress (kick) meanwhile.
type watchdog struct {
	r      *retrier
	cancel context.CancelFunc

	mu     sync.Mutex
	t      *time.Timer
	active bool // between arm and disarm
}

// watch returns a context derived from ctx for the calls of one operation
// and its watchdog, disarmed. The caller stops it when the operation is
// over (for a reader, when it is closed).
func (r *retrier) watch(ctx context.Context) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{r: r, cancel: cancel}
	w.t = time.AfterFunc(r.timeout, func() {
		w.mu.Lock()
		active := w.active
		w.mu.Unlock()
		if !active {
			return // disarmed as it fired
		}
		r.mu.Lock()
		r.expired = true
		r.mu.Unlock()
		cancel()
	})
	w.t.Stop()
	return ctx, w
}

// bound returns a context derived from ctx that is cancelled once the
// timeout has passed, for an operation that ends when its call returns,
// and the function that releases it.
func (r *retrier) bound(ctx context.Context) (context.Context, func()) {
	ctx, w := r.watch(ctx)
	w.arm()
	return ctx, w.stop
}

// arm starts the wait of a call; disarm ends it.
func (w *watchdog) arm() {
	w.mu.Lock()
	w.active = true
	w.t.Reset(w.r.timeout)
	w.mu.Unlock()
}

func (w *watchdog) disarm() {
	w.mu.Lock()
	w.active = false
	w.t.Stop()
	w.mu.Unlock()
}

// kick starts the wait of the call under way, if any, afresh: it made
// progress.
func (w *watchdog) kick() {
	w.mu.Lock()
	if w.active {
		w.t.Reset(w.r.timeout)
	}
	w.mu.Unlock()
}

// stop disarms the watchdog for good and ends the operation's context.
func (w *watchdog) stop() {
	w.disarm()
	w.cancel()
}

// succeeded forgets the failures before a call that succeeded: the
// operation's later failures are judged alone.
func (r *retrier) succeeded() {
	r.mu.Lock()
	r.attempts, r.transient, r.last = 0, false, nil
	r.mu.Unlock()
}

// cut returns err, or an error saying GCS is unreachable (without the
// operation and path) when the retries ran out on transient errors or a
// watchdog cut the call that failed with err.
func (r *retrier) cut(err error) error {
	r.mu.Lock()
	n, transient, last, expired := r.attempts, r.transient, r.last, r.expired
	r.mu.Unlock()
	switch {
	case transient && n > 0:
		return fmt.Errorf("GCS unreachable after %d attempts in %s: %w", n, r.timeout, last)
	case expired:
		return fmt.Errorf("GCS unreachable: no answer in %s: %w", r.timeout, err)
	}
	return err
}

// err wraps the error of the operation: gcsErr, or when GCS is
// unreachable (see cut), an error saying so.
func (r *retrier) err(err error) error {
	if err == nil {
		return nil
	}
	if c := r.cut(err); c != err {
		return fmt.Errorf("storage: %s %s: %w", r.op, r.path, c)
	}
	return gcsErr(r.op, r.path, err)
}

var defaultFS FS

// SetGCSClient sets the client the package functions use for gs:// paths. A
// nil c restores the default: a client made on first use by
// storage.NewClient.
func SetGCSClient(c *gcs.Client) {
	defaultFS.mu.Lock()
	defaultFS.GCS = c
	defaultFS.mu.Unlock()
}

// client returns the FS's GCS client, making the default one if needed.
func (f *FS) client(ctx context.Context) (*gcs.Client, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.GCS != nil {
		return f.GCS, nil
	}
	if f.lazy == nil {
		// The client outlives this call: it must not stop working when the
		// caller's context is cancelled.
		c, err := gcs.NewClient(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("storage: creating GCS client: %w", err)
		}
		f.lazy = c
	}
	return f.lazy, nil
}

// IsGCS reports whether path names a GCS object, that is starts with "gs://".
func IsGCS(path string) bool { return strings.HasPrefix(path, gcsScheme) }

// Join joins path elements into one path. If the first non-empty element is
// a gs:// path the elements are joined with "/" after the bucket, otherwise
// as local paths by filepath.Join. Like filepath.Join, the result is
// cleaned: Join("gs://b/run1/", "nbest.gz") is "gs://b/run1/nbest.gz".
// In a gs:// path ".." is resolved within the bucket and never leaves it:
// Join("gs://b/m", "../lm.gz") is "gs://b/lm.gz", and a path that would
// climb out of the bucket keeps its leading ".." (Join("gs://b/m",
// "../../x") is "gs://b/../x"), which every operation refuses; Resolve
// reports it as it joins.
func Join(elem ...string) string {
	for i, e := range elem {
		if e == "" {
			continue
		}
		if !IsGCS(e) {
			break
		}
		parts := append([]string{strings.TrimPrefix(e, gcsScheme)}, elem[i+1:]...)
		return gcsScheme + joinGCS(parts)
	}
	return filepath.Join(elem...)
}

// joinGCS joins the parts of a gs:// path after the scheme. The first
// segment is the bucket; the object name is cleaned on its own, so that
// ".." stays in the bucket.
func joinGCS(parts []string) string {
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	bucket, object, _ := strings.Cut(strings.TrimLeft(strings.Join(nonEmpty, "/"), "/"), "/")
	object = path.Clean(strings.TrimLeft(object, "/"))
	if object == "." {
		return bucket
	}
	return bucket + "/" + object
}

// Resolve returns the path that p, relative to the folder dir, names: p
// itself when it is a gs:// path or an absolute local path, else Join(dir,
// p). Relative to a gs:// folder, ".." is resolved within the bucket and a
// p that climbs out of it is an error naming p: Resolve("gs://b/m",
// "../lm.gz") is "gs://b/lm.gz", Resolve("gs://b/m", "../../other/lm.gz")
// an error. Relative to a local folder, p is joined as filepath.Join does,
// ".." and all.
func Resolve(dir, p string) (string, error) {
	if p == "" || IsGCS(p) || filepath.IsAbs(p) {
		return p, nil
	}
	out := Join(dir, p)
	if IsGCS(out) {
		if _, object, _ := strings.Cut(strings.TrimPrefix(out, gcsScheme), "/"); climbs(object) {
			return "", fmt.Errorf("storage: path %s relative to %s climbs out of the bucket", p, dir)
		}
	}
	return out, nil
}

// climbs reports whether the GCS object name has a ".." element.
func climbs(object string) bool {
	return slices.Contains(strings.Split(object, "/"), "..")
}

// parseGCS splits a gs:// path into bucket and object name. The object name
// may be empty and has no ".." element. The bucket name must be non-empty,
// made of the characters GCS allows (lower-case letters, digits, '-', '_'
// and '.'), and start and end with a letter or digit.
func parseGCS(p string) (bucket, object string, err error) {
	bucket, object, _ = strings.Cut(strings.TrimPrefix(p, gcsScheme), "/")
	if bucket == "" {
		return "", "", fmt.Errorf("storage: invalid path %q: no bucket name after gs://", p)
	}
	for _, r := range bucket {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return "", "", fmt.Errorf("storage: invalid path %q: bucket name %q has character %q", p, bucket, r)
		}
	}
	if alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }; !alnum(bucket[0]) || !alnum(bucket[len(bucket)-1]) {
		return "", "", fmt.Errorf("storage: invalid path %q: bucket name %q does not start and end with a letter or digit", p, bucket)
	}
	if climbs(object) {
		return "", "", fmt.Errorf("storage: invalid path %q: \"..\" in the object name (Join and Resolve resolve it)", p)
	}
	return bucket, object, nil
}

// parseObject is parseGCS for operations on one object: the object name must
// be non-empty and not end in "/".
func parseObject(op, p string) (bucket, object string, err error) {
	bucket, object, err = parseGCS(p)
	if err != nil {
		return "", "", err
	}
	if object == "" {
		return "", "", fmt.Errorf("storage: %s %s: no object name after the bucket", op, p)
	}
	if strings.HasSuffix(object, "/") {
		return "", "", fmt.Errorf("storage: %s %s: object name ends in \"/\"", op, p)
	}
	return bucket, object, nil
}

// notExistError is a GCS "not found" error that also matches fs.ErrNotExist.
type notExistError struct {
	what string // "object" or "bucket"
	err  error
}

func (e *notExistError) Error() string   { return e.what + " does not exist" }
func (e *notExistError) Unwrap() []error { return []error{e.err, fs.ErrNotExist} }

// gcsErr wraps an error from the GCS client with the operation and path,
// mapping the client's not-found errors to fs.ErrNotExist.
func gcsErr(op, p string, err error) error {
	switch {
	case errors.Is(err, gcs.ErrObjectNotExist):
		err = &notExistError{"object", err}
	case errors.Is(err, gcs.ErrBucketNotExist):
		err = &notExistError{"bucket", err}
	}
	return fmt.Errorf("storage: %s %s: %w", op, p, err)
}

// Open opens path for reading, decompressing .gz and .zst by extension.
// Errors name the path.
func Open(ctx context.Context, path string) (io.ReadCloser, error) {
	return defaultFS.Open(ctx, path)
}

// Open opens p for reading, decompressing .gz and .zst by extension. Errors
// name the path; a missing file or object gives an error matching
// fs.ErrNotExist. Read errors, including those of a corrupt or truncated
// compressed stream, name the path too.
func (f *FS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	return f.open(ctx, p, 0)
}

// ErrNotSeekable is the error of OpenAt for a compressed file, whose
// content can be read only from its start.
var ErrNotSeekable = errors.New("compressed files cannot be read from an offset")

// Seekable reports whether OpenAt can open path: whether it is stored
// uncompressed.
func Seekable(path string) bool { return codecOf(path) == codecNone }

// OpenAt opens path for reading from byte offset off (0 ≤ off ≤ its size;
// an offset at the end gives an empty reader): a seek for a local file, a
// range read of a gs:// object. A compressed path gives an error matching
// ErrNotSeekable. Errors name the path.
func OpenAt(ctx context.Context, path string, off int64) (io.ReadCloser, error) {
	return defaultFS.OpenAt(ctx, path, off)
}

// OpenAt opens p for reading from byte offset off (see the function
// OpenAt).
func (f *FS) OpenAt(ctx context.Context, p string, off int64) (io.ReadCloser, error) {
	if !Seekable(p) {
		return nil, fmt.Errorf("storage: open %s at %d: %w", p, off, ErrNotSeekable)
	}
	if off < 0 {
		return nil, fmt.Errorf("storage: open %s at %d: negative offset", p, off)
	}
	return f.open(ctx, p, off)
}

// open opens p for reading from byte offset off, which is zero for a
// compressed file.
func (f *FS) open(ctx context.Context, p string, off int64) (io.ReadCloser, error) {
	if IsGCS(p) {
		obj, err := f.object(ctx, "open", p)
		if err != nil {
			return nil, err
		}
		rt := f.retrier("open", p)
		obj = obj.Retryer(rt.options()...)
		if codecOf(p) == codecGzip {
			// The object may have been stored with Content-Encoding: gzip;
			// ask for its bytes as stored and decompress them here, once.
			obj = obj.ReadCompressed(true)
		}
		// The reader reads under wctx: the watchdog is armed while a call
		// waits for GCS, and the context ends when the reader is closed.
		wctx, wd := rt.watch(ctx)
		wd.arm()
		r, err := obj.NewRangeReader(wctx, off, -1)
		var ae *googleapi.Error
		if off > 0 && errors.As(err, &ae) && ae.Code == http.StatusRequestedRangeNotSatisfiable {
			// GCS refuses a range that starts at the end of an object:
			// that one is empty, a later one is an error.
			attrs, aerr := obj.Attrs(wctx)
			wd.stop()
			if aerr != nil {
				return nil, rt.err(aerr)
			}
			if attrs.Size != off {
				return nil, fmt.Errorf("storage: open %s at %d: beyond its %d bytes", p, off, attrs.Size)
			}
			return newReader(p, io.NopCloser(strings.NewReader("")))
		}
		wd.disarm()
		if err != nil {
			wd.stop()
			return nil, rt.err(err)
		}
		rt.succeeded()
		return newReader(p, &watchedReader{r: r, rt: rt, wd: wd})
	}
	file, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	st, err := file.Stat()
	switch {
	case err != nil:
		file.Close()
		return nil, fmt.Errorf("storage: open %s: %w", p, err)
	case st.IsDir():
		file.Close()
		return nil, fmt.Errorf("storage: open %s: is a directory", p)
	case off > st.Size():
		file.Close()
		return nil, fmt.Errorf("storage: open %s at %d: beyond its %d bytes", p, off, st.Size())
	}
	if off > 0 {
		if _, err := file.Seek(off, io.SeekStart); err != nil {
			file.Close()
			return nil, fmt.Errorf("storage: open %s at %d: %w", p, off, err)
		}
	}
	return newReader(p, file)
}

// Identity returns a string that names the content of the file at path
// without reading it, for cache keys: for a local file its absolute path,
// size and modification time; for a gs:// object its path, generation,
// CRC32C and size. A missing file or object gives an error matching
// fs.ErrNotExist. Errors name the path.
func Identity(ctx context.Context, path string) (string, error) {
	return defaultFS.Identity(ctx, path)
}

// Identity returns what names the content of p (see the function
// Identity).
func (f *FS) Identity(ctx context.Context, p string) (string, error) {
	if IsGCS(p) {
		a, err := f.attrs(ctx, p)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("gcs %s generation %d crc32c %08x size %d", p, a.Generation, a.CRC32C, a.Size), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("storage: stat %s: %w", p, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("storage: %w", err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("storage: stat %s: is a directory", p)
	}
	return fmt.Sprintf("file %s size %d mtime %d", abs, fi.Size(), fi.ModTime().UnixNano()), nil
}

// Digest returns a checksum of the stored bytes of the file at path (not
// decompressed), for telling whether it changed: for a local file
// "sha256:" and the SHA-256 of its bytes, read once; for a gs:// object
// "crc32c:" and the CRC32C GCS keeps of it, without reading it. Errors
// name the path.
func Digest(ctx context.Context, path string) (string, error) {
	return defaultFS.Digest(ctx, path)
}

// Digest returns the checksum of p (see the function Digest).
func (f *FS) Digest(ctx context.Context, p string) (string, error) {
	if IsGCS(p) {
		a, err := f.attrs(ctx, p)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("crc32c:%08x", a.CRC32C), nil
	}
	file, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("storage: %w", err)
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return "", fmt.Errorf("storage: read %s: %w", p, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// attrs returns the attributes of the gs:// object p, with retries.
func (f *FS) attrs(ctx context.Context, p string) (*gcs.ObjectAttrs, error) {
	obj, err := f.object(ctx, "stat", p)
	if err != nil {
		return nil, err
	}
	rt := f.retrier("stat", p)
	ctx, done := rt.bound(ctx)
	defer done()
	a, err := obj.Retryer(rt.options()...).Attrs(ctx)
	if err != nil {
		return nil, rt.err(err)
	}
	return a, nil
}

// ReadFile reads the whole (decompressed) content of path.
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	return defaultFS.ReadFile(ctx, path)
}

// ReadFile reads the whole (decompressed) content of p.
func (f *FS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if !IsGCS(p) && codecOf(p) == codecNone {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("storage: %w", err)
		}
		return b, nil
	}
	r, err := f.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// WriteFile writes data to path atomically, compressing by extension.
func WriteFile(ctx context.Context, path string, data []byte) error {
	return defaultFS.WriteFile(ctx, path, data)
}

// WriteFile writes data to p atomically, compressing by extension: on error
// the previous content of p, if any, is left as it was.
func (f *FS) WriteFile(ctx context.Context, p string, data []byte) error {
	w, err := f.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Exists reports whether path exists: a local file or directory, a GCS
// object, or for "gs://bucket" alone the bucket. A missing path gives false
// and a nil error; other failures (permissions, network) give the error.
func Exists(ctx context.Context, path string) (bool, error) {
	return defaultFS.Exists(ctx, path)
}

// Exists reports whether p exists; see the package function Exists.
func (f *FS) Exists(ctx context.Context, p string) (bool, error) {
	if !IsGCS(p) {
		_, err := os.Stat(p)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		default:
			return false, fmt.Errorf("storage: %w", err)
		}
	}
	bucket, object, err := parseGCS(p)
	if err != nil {
		return false, err
	}
	c, err := f.client(ctx)
	if err != nil {
		return false, err
	}
	rt := f.retrier("stat", p)
	ctx, done := rt.bound(ctx)
	defer done()
	if object == "" {
		_, err = c.Bucket(bucket).Retryer(rt.options()...).Attrs(ctx)
	} else {
		_, err = c.Bucket(bucket).Object(object).Retryer(rt.options()...).Attrs(ctx)
	}
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, gcs.ErrObjectNotExist), errors.Is(err, gcs.ErrBucketNotExist):
		return false, nil
	default:
		return false, rt.err(err)
	}
}

// List returns the sorted full paths of the files directly inside dir, not
// recursively: for a local dir the regular files (symbolic links followed),
// for "gs://bucket/prefix" the objects named "prefix/NAME" where NAME has no
// "/". Temporary files of writes in progress are left out. A missing local
// directory or GCS bucket is an error matching fs.ErrNotExist; a GCS prefix
// with no objects gives an empty list.
func List(ctx context.Context, dir string) ([]string, error) {
	return defaultFS.List(ctx, dir)
}

// List lists the files directly inside dir; see the package function List.
func (f *FS) List(ctx context.Context, dir string) ([]string, error) {
	if IsGCS(dir) {
		bucket, object, err := parseGCS(dir)
		if err != nil {
			return nil, err
		}
		if object != "" && !strings.HasSuffix(object, "/") {
			object += "/"
		}
		return f.listGCS(ctx, "list", dir, bucket, object, "", nil)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: list: %w", err)
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if isLocalFile(p, e.Name(), e.Type()) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// isLocalFile reports whether the directory entry p (base name, type t) is a
// regular file, following symbolic links, and not one of our temporary files.
func isLocalFile(p, name string, t fs.FileMode) bool {
	if isTempName(name) || isLockName(name) {
		return false
	}
	if t&fs.ModeSymlink != 0 {
		st, err := os.Stat(p)
		if err != nil {
			return false
		}
		t = st.Mode().Type()
	}
	return t.IsRegular()
}

// listGCS lists the objects of bucket named dir+NAME with NAME free of "/",
// starting with namePrefix and, if match is not nil, with match(NAME) true.
// p names the listed path in errors.
func (f *FS) listGCS(ctx context.Context, op, p, bucket, dir, namePrefix string, match func(string) bool) ([]string, error) {
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	q := &gcs.Query{Prefix: dir + namePrefix, Delimiter: "/"}
	if err := q.SetAttrSelection([]string{"Name"}); err != nil {
		return nil, fmt.Errorf("storage: %s %s: %w", op, p, err)
	}
	rt := f.retrier(op, p)
	ctx, wd := rt.watch(ctx)
	defer wd.stop()
	it := c.Bucket(bucket).Retryer(rt.options()...).Objects(ctx, q)
	var out []string
	for {
		wd.arm() // a page is fetched as Next needs it
		attrs, err := it.Next()
		wd.disarm()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, rt.err(err)
		}
		if attrs.Prefix != "" || attrs.Name == dir {
			continue // a "subdirectory", or a placeholder object for dir
		}
		name := attrs.Name[len(dir):]
		if match != nil && !match(name) {
			continue
		}
		out = append(out, gcsScheme+bucket+"/"+attrs.Name)
	}
	sort.Strings(out)
	return out, nil
}

// Glob returns the sorted paths of the files that match pattern, whose last
// element is a path.Match pattern: "/data/run1/nbest.*.gz",
// "gs://bucket/run1/nbest.*.gz". For GCS the wildcards may only be in the
// last element; a local pattern may have them anywhere, as in filepath.Glob.
// Only files (objects) are returned, never directories. No match gives an
// empty result and a nil error; a malformed pattern wraps path.ErrBadPattern.
func Glob(ctx context.Context, pattern string) ([]string, error) {
	return defaultFS.Glob(ctx, pattern)
}

// Glob returns the files matching pattern; see the package function Glob.
func (f *FS) Glob(ctx context.Context, pattern string) ([]string, error) {
	if IsGCS(pattern) {
		bucket, object, err := parseGCS(pattern)
		if err != nil {
			return nil, err
		}
		i := strings.LastIndexByte(object, '/')
		dir, pat := object[:i+1], object[i+1:]
		if hasMeta(dir) {
			return nil, fmt.Errorf("storage: glob %s: wildcards are only allowed in the last path element", pattern)
		}
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("storage: glob %s: %w", pattern, err)
		}
		if pat == "" {
			return nil, nil
		}
		return f.listGCS(ctx, "glob", pattern, bucket, dir, literalPrefix(pat), func(name string) bool {
			ok, _ := path.Match(pat, name)
			return ok
		})
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("storage: glob %s: %w", pattern, err)
	}
	out := matches[:0]
	for _, m := range matches {
		st, err := os.Lstat(m)
		if err != nil {
			continue
		}
		if isLocalFile(m, filepath.Base(m), st.Mode().Type()) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// hasMeta reports whether s has a path.Match special character.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// literalPrefix returns the part of pattern before its first special
// character.
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// Create opens path for writing, compressing by extension. Nothing is visible
// at path until Close returns nil; see Writer.
func Create(ctx context.Context, path string) (*Writer, error) {
	return defaultFS.Create(ctx, path)
}

// Create opens p for writing, compressing by extension; see the package
// function Create. The local directory or GCS bucket must exist; a missing
// bucket is reported by Close. A GCS Writer holds up to the client's upload
// chunk size (16 MiB by default) in memory; longer content is uploaded in
// chunks as it is written, and still only made visible by Close.
func (f *FS) Create(ctx context.Context, p string) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", p, err)
	}
	var s sink
	if IsGCS(p) {
		bucket, object, err := parseObject("create", p)
		if err != nil {
			return nil, err
		}
		c, err := f.client(ctx)
		if err != nil {
			return nil, err
		}
		rt := f.retrier("create", p)
		// Uploading the same bytes again is safe: retry even though the
		// write is not conditional.
		s = newGCSSink(ctx, c.Bucket(bucket).Object(object).Retryer(rt.always()...), contentType(p), rt)
	} else {
		ls, err := newLocalSink(p)
		if err != nil {
			return nil, err
		}
		s = ls
	}
	return newWriter(ctx, p, s)
}

// contentType returns the Content-Type stored with a GCS object written at
// p, or "" to let the client library choose.
func contentType(p string) string {
	switch codecOf(p) {
	case codecGzip:
		return "application/gzip"
	case codecZstd:
		return "application/zstd"
	}
	return ""
}

// watchedReader reads a GCS object with the watchdog of its opening armed
// during each read; Close ends the reads' context.
type watchedReader struct {
	r  io.ReadCloser
	rt *retrier
	wd *watchdog
}

func (w *watchedReader) Read(p []byte) (int, error) {
	w.wd.arm()
	n, err := w.r.Read(p)
	w.wd.disarm()
	if err != nil && err != io.EOF {
		err = w.rt.cut(err)
	}
	return n, err
}

func (w *watchedReader) Close() error {
	err := w.r.Close()
	w.wd.stop()
	return err
}

// bufferedReader returns r with a large read buffer: the decompressors read
// through an io.ByteReader and would otherwise add a small one of their own.
func bufferedReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, bufSize) }

// bufSize is the size of the read and write buffers around files and objects.
const bufSize = 256 << 10
