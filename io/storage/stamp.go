package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// Clean returns the one spelling of the local path or gs:// name p that
// every later use compares and writes by: a gs:// name with its empty and
// "." elements dropped and ".." resolved within the bucket (Join's rule:
// "gs://b//d2", "gs://b/./d2" and "gs://b/d2/./" are all "gs://b/d2"); a
// local path absolute and cleaned, with the symbolic links of its longest
// existing part followed, so that a link to a folder and the folder are
// one folder. "" stays "".
func Clean(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if IsGCS(p) {
		c := Join(p)
		if _, _, err := parseGCS(c); err != nil {
			return "", err
		}
		return c, nil
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("storage: %s: %w", p, err)
	}
	return followLinks(a), nil
}

// followLinks returns the absolute path a with the links of its longest
// existing part followed.
func followLinks(a string) string {
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	dir, base := filepath.Split(a)
	dir = filepath.Clean(dir)
	if dir == a || base == "" {
		return a
	}
	return filepath.Join(followLinks(dir), base)
}

// FileStamp is a file of a folder (Stamps) with what tells, without
// reading it, whether it changed since: for a local file its size and
// modification time, for a gs:// object its generation; and for a gs://
// object its Digest, which GCS keeps.
type FileStamp struct {
	Path, Stamp string
	// Digest is Digest(Path) where the listing gives it (gs://), else "".
	Digest string
}

// Stamps returns every file under dir, recursively, sorted by path, as
// Walk does (temporary and lock files left out), each with its stamp. A
// missing dir gives an empty list.
func Stamps(ctx context.Context, dir string) ([]FileStamp, error) {
	return defaultFS.Stamps(ctx, dir)
}

// Stamps lists the files under dir with their stamps; see the package
// function.
func (f *FS) Stamps(ctx context.Context, dir string) ([]FileStamp, error) {
	if !IsGCS(dir) {
		return stampsLocal(dir)
	}
	bucket, prefix, err := parseGCS(dir)
	if err != nil {
		return nil, err
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	q := &gcs.Query{Prefix: prefix}
	if err := q.SetAttrSelection([]string{"Name", "Generation", "CRC32C"}); err != nil {
		return nil, fmt.Errorf("storage: walk %s: %w", dir, err)
	}
	rt := f.retrier("walk", dir)
	ctx, wd := rt.watch(ctx)
	defer wd.stop()
	it := c.Bucket(bucket).Retryer(rt.options()...).Objects(ctx, q)
	var out []FileStamp
	for {
		wd.arm() // a page is fetched as Next needs it
		attrs, err := it.Next()
		wd.disarm()
		if err == iterator.Done {
			break
		}
		if errors.Is(err, gcs.ErrBucketNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, rt.err(err)
		}
		out = append(out, FileStamp{Path: gcsScheme + bucket + "/" + attrs.Name,
			Stamp:  "generation " + strconv.FormatInt(attrs.Generation, 10),
			Digest: fmt.Sprintf("crc32c:%08x", attrs.CRC32C)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// stampsLocal is Stamps of a local folder.
func stampsLocal(dir string) ([]FileStamp, error) {
	var out []FileStamp
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || isTempName(d.Name()) || isLockName(d.Name()) {
			return nil
		}
		st, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while listed
		}
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			// A link or a device in a run folder is none of mtune's: it is
			// listed (so that it is named and kept), never read.
			out = append(out, FileStamp{Path: p, Stamp: "mode " + st.Mode().String()})
			return nil
		}
		out = append(out, FileStamp{Path: p, Stamp: localStamp(st)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: walk %s: %w", dir, err)
	}
	return out, nil
}

// localStamp is the stamp of a local file: its size and modification time.
func localStamp(st os.FileInfo) string {
	return "size " + strconv.FormatInt(st.Size(), 10) + " mtime " + strconv.FormatInt(st.ModTime().UnixNano(), 10)
}
