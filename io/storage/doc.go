// Package storage opens, creates and lists files by path, on the local disk
// or in Google Cloud Storage, compressing and decompressing by extension.
//
// A path is either a local file path or a GCS object URL:
//
//	/data/run1/nbest.3.gz               a local file, gzip-compressed
//	run1/weights.txt                    a local file, relative to the working directory
//	gs://my-bucket/run1/nbest.3.zst     object "run1/nbest.3.zst" in bucket "my-bucket", zstd
//
// The extension of the path's last element chooses the compression:
//
//	.gz    gzip (RFC 1952), several concatenated members allowed when reading
//	.zst   Zstandard (RFC 8878), several concatenated frames allowed when reading
//	other  none: bytes are read and written as they are
//
// So Create(ctx, "gs://b/run1/nbest.gz") followed by a Write of
// "0 ||| the house ||| LM0= -3.5 ||| -1.2\n" stores a gzip stream in object
// "run1/nbest.gz", and Open of the same path returns that line again.
// A compressed stream that is corrupt or cut short (including an empty .gz or
// .zst file) gives a read error that names the path and, when cut short,
// wraps io.ErrUnexpectedEOF: never a silent short read.
//
// Writes are atomic: nothing is visible at the path until Writer.Close
// returns nil, and a write that fails, is aborted or whose context is
// cancelled leaves the previous content, if any, untouched. A local write goes
// to a temporary file in the same directory that is synced and then renamed
// over the path; a GCS write is an upload that the service commits only when
// it completes, and Abort cancels it.
//
// GCS paths use a *storage.Client from cloud.google.com/go/storage. The
// package functions use one created on first use of a gs:// path with
// storage.NewClient (application default credentials; STORAGE_EMULATOR_HOST
// is honoured, as the client library does) unless SetGCSClient gave one; an
// FS carries its own client.
//
// Join and Resolve resolve ".." in a gs:// path within its bucket: a path
// that would climb out of the bucket is refused, and so is a gs:// path
// given with a ".." element in its object name.
//
// A missing file or object gives an error for which
// errors.Is(err, fs.ErrNotExist) holds, on both backends. GCS has no
// directories: List and Glob treat "/" in object names as a separator and
// return objects only. Local listings leave out the temporary files of writes
// in progress (".NAME.mtune-tmp-*").
//
// Compression uses github.com/klauspost/compress at its default levels; its
// gzip decoder is faster than the standard library's (see BenchmarkRead).
package storage
