package storage

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
)

// ErrPrecondition is returned, wrapped, by a conditional write or remove
// (WriteIfVersion, RemoveIfVersion) that found another version of the file
// than the one it was given: somebody else changed it in between.
var ErrPrecondition = errors.New("storage: precondition failed: the file changed")

// Versioned files: a compare-and-swap on one small file, for leases and
// pointers that several processes may race to replace. A version names one
// content of a file; 0 names "no file". On GCS it is the object's
// generation and the conditions are ifGenerationMatch preconditions (0:
// the object must not exist), so two writers can never both win. Locally
// it is derived from the file's inode, modification time and size, and
// the compare and the rename happen under an exclusive flock(2) of a
// sibling ".NAME.mtune-lock" file, which orders the processes of one
// machine (and of the hosts of a file system with working locks). The
// content is stored as it is: no compression by extension.

// ReadVersion returns the content of the file p and its version. A missing
// file gives nil, version 0 and a nil error.
func ReadVersion(ctx context.Context, p string) ([]byte, int64, error) {
	data, v, _, err := defaultFS.ReadVersionTime(ctx, p)
	return data, v, err
}

// ReadVersion returns p's content and version; see the package function.
func (f *FS) ReadVersion(ctx context.Context, p string) ([]byte, int64, error) {
	data, v, _, err := f.ReadVersionTime(ctx, p)
	return data, v, err
}

// ReadVersionTime is ReadVersion that also returns when that version was
// written by the store's own account: a local file's modification time,
// a GCS object's "updated" time (from the download's Last-Modified, which
// has whole seconds: the next second is returned, never a time before the
// write). It lets a reader judge how long ago a file was last written
// without trusting a time the writer put in it.
func ReadVersionTime(ctx context.Context, p string) ([]byte, int64, time.Time, error) {
	return defaultFS.ReadVersionTime(ctx, p)
}

// ReadVersionTime returns p's content, version and modification time; see
// the package function.
func (f *FS) ReadVersionTime(ctx context.Context, p string) ([]byte, int64, time.Time, error) {
	if !IsGCS(p) {
		file, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, time.Time{}, nil
		}
		if err != nil {
			return nil, 0, time.Time{}, fmt.Errorf("storage: %w", err)
		}
		defer file.Close()
		st, err := file.Stat()
		if err != nil {
			return nil, 0, time.Time{}, fmt.Errorf("storage: %w", err)
		}
		data, err := io.ReadAll(file)
		if err != nil {
			return nil, 0, time.Time{}, fmt.Errorf("storage: read %s: %w", p, err)
		}
		return data, localVersion(st), st.ModTime(), nil
	}
	obj, err := f.object(ctx, "read", p)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	rt := f.retrier("read", p)
	ctx, done := rt.bound(ctx)
	defer done()
	obj = obj.Retryer(rt.options()...)
	r, err := obj.ReadCompressed(true).NewReader(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return nil, 0, time.Time{}, nil
	}
	if err != nil {
		return nil, 0, time.Time{}, rt.err(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, time.Time{}, rt.err(err)
	}
	mod := r.Attrs.LastModified
	if mod.IsZero() {
		a, err := obj.Generation(r.Attrs.Generation).Attrs(ctx)
		if errors.Is(err, gcs.ErrObjectNotExist) {
			// Replaced since: that generation was written before now.
			return data, r.Attrs.Generation, time.Now(), nil
		}
		if err != nil {
			return nil, 0, time.Time{}, rt.err(err)
		}
		mod = a.Updated
	} else {
		mod = mod.Truncate(time.Second).Add(time.Second)
	}
	return data, r.Attrs.Generation, mod, nil
}

// WriteIfVersion replaces the file p by data if p's version is still v (0:
// if p does not exist), atomically, and returns the new version. Otherwise
// it writes nothing and returns an error wrapping ErrPrecondition.
func WriteIfVersion(ctx context.Context, p string, data []byte, v int64) (int64, error) {
	return defaultFS.WriteIfVersion(ctx, p, data, v)
}

// WriteIfVersion is the conditional write; see the package function.
func (f *FS) WriteIfVersion(ctx context.Context, p string, data []byte, v int64) (int64, error) {
	if !IsGCS(p) {
		var nv int64
		err := withLocalLock(p, func() error {
			if cur, err := statVersion(p); err != nil {
				return err
			} else if cur != v {
				return fmt.Errorf("storage: write %s: %w", p, ErrPrecondition)
			}
			// Every write of p holds the lock: a temporary file of p
			// found now is one a killed write left.
			if _, err := RemoveTempsOf(p); err != nil {
				return err
			}
			s, err := newLocalSink(p)
			if err != nil {
				return err
			}
			if _, err := s.Write(data); err != nil {
				s.abort()
				return fmt.Errorf("storage: write %s: %w", p, err)
			}
			if err := s.commit(); err != nil {
				return fmt.Errorf("storage: write %s: %w", p, err)
			}
			nv, err = statVersion(p)
			return err
		})
		return nv, err
	}
	obj, err := f.object(ctx, "write", p)
	if err != nil {
		return 0, err
	}
	cond := gcs.Conditions{GenerationMatch: v}
	if v == 0 {
		cond = gcs.Conditions{DoesNotExist: true}
	}
	rt := f.retrier("write", p)
	wctx, done := rt.bound(ctx)
	defer done()
	// The client's bound on retries does not apply to uploads: the
	// context's does, and the chunk's.
	w := obj.If(cond).Retryer(rt.options()...).NewWriter(wctx)
	w.ContentType = "application/json"
	w.ChunkRetryDeadline = rt.timeout
	if _, err := w.Write(data); err != nil {
		done()
		w.Close()
		return 0, casErr(rt, err)
	}
	if err := w.Close(); err != nil {
		return 0, casErr(rt, err)
	}
	return w.Attrs().Generation, nil
}

// RemoveIfVersion removes the file p if its version is still v; a missing
// file (v or not) is no error. Otherwise it returns an error wrapping
// ErrPrecondition.
func RemoveIfVersion(ctx context.Context, p string, v int64) error {
	return defaultFS.RemoveIfVersion(ctx, p, v)
}

// RemoveIfVersion is the conditional remove; see the package function.
func (f *FS) RemoveIfVersion(ctx context.Context, p string, v int64) error {
	if !IsGCS(p) {
		return withLocalLock(p, func() error {
			cur, err := statVersion(p)
			switch {
			case err != nil:
				return err
			case cur == 0:
				return nil
			case cur != v:
				return fmt.Errorf("storage: remove %s: %w", p, ErrPrecondition)
			}
			return removeLocal(p)
		})
	}
	obj, err := f.object(ctx, "remove", p)
	if err != nil {
		return err
	}
	// Deleting generation v alone removes nothing once another
	// generation is live (the emulator ignores the precondition on
	// deletes; the service honours both).
	rt := f.retrier("remove", p)
	ctx, done := rt.bound(ctx)
	defer done()
	err = obj.Generation(v).If(gcs.Conditions{GenerationMatch: v}).Retryer(rt.options()...).Delete(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return nil
	}
	return casErr(rt, err)
}

// object returns the handle of the GCS object p.
func (f *FS) object(ctx context.Context, op, p string) (*gcs.ObjectHandle, error) {
	bucket, object, err := parseObject(op, p)
	if err != nil {
		return nil, err
	}
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	return c.Bucket(bucket).Object(object), nil
}

// casErr maps a failed GCS precondition (HTTP 412) to ErrPrecondition,
// and other errors as rt.err does.
func casErr(rt *retrier, err error) error {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed {
		return fmt.Errorf("storage: %s %s: %w", rt.op, rt.path, ErrPrecondition)
	}
	return rt.err(err)
}

// lockMarker is in the names of the lock files of local conditional
// writes: ".NAME.mtune-lock" beside NAME.
const lockMarker = ".mtune-lock"

// withLocalLock runs fn holding an exclusive flock of p's lock file. A
// lock file whose p is gone after fn is removed, so that a conditional
// write or remove leaves nothing behind it once its file is gone (a
// released lease); one that waited for a lock file removed meanwhile
// locks the one now in place instead.
func withLocalLock(p string, fn func() error) error {
	dir, base := filepath.Split(p)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("storage: %w", err)
		}
	}
	lock := filepath.Join(dir, "."+base+lockMarker)
	for {
		lf, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return fmt.Errorf("storage: lock %s: %w", p, err)
		}
		if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
			lf.Close()
			return fmt.Errorf("storage: lock %s: %w", p, err)
		}
		held, err := lf.Stat()
		if err != nil {
			lf.Close()
			return fmt.Errorf("storage: lock %s: %w", p, err)
		}
		cur, err := os.Stat(lock)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			lf.Close()
			return fmt.Errorf("storage: lock %s: %w", p, err)
		}
		if err != nil || !os.SameFile(held, cur) {
			lf.Close() // removed while we waited: lock the new one
			continue
		}
		err = fn()
		if _, serr := os.Lstat(p); errors.Is(serr, fs.ErrNotExist) {
			os.Remove(lock)
		}
		lf.Close() // releases the flock
		return err
	}
}

// statVersion returns the version of the local file p, 0 if it is missing.
func statVersion(p string) (int64, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("storage: %w", err)
	}
	return localVersion(st), nil
}

// localVersion derives a non-zero version from a file's inode, modification
// time and size: every write renames a new inode over the file.
func localVersion(st fs.FileInfo) int64 {
	h := fnv.New64a()
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	fmt.Fprintf(h, "%d/%d/%d", ino, st.ModTime().UnixNano(), st.Size())
	return int64(h.Sum64()>>1) | 1
}
