package storage

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrNoRoom is OverwriteInPlace's refusal of content that does not fit in
// the blocks the file already holds.
var ErrNoRoom = errors.New("storage: no room in the file's own blocks")

// OverwriteInPlace rewrites the existing local file p with data inside
// the disk blocks p already holds, allocating none: the last resort of a
// small file whose atomic write (WriteFile: a new file, then a rename)
// failed because the disk is full, when leaving the old content would
// leave a record known to be wrong (a run's manifest still saying
// "running" after the run failed). It refuses (ErrNoRoom) content larger
// than p's allocated blocks, and gs:// names, whose writes never run out
// of local space. It is not atomic: a crash while it writes can leave p
// part old, part new, which is why nothing but that last resort uses it.
func OverwriteInPlace(p string, data []byte) error {
	if IsGCS(p) {
		return fmt.Errorf("storage: overwrite %s in place: not a local file", p)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("storage: %w", err)
	}
	var allocated int64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		allocated = int64(sys.Blocks) * 512
	}
	if int64(len(data)) > allocated {
		f.Close()
		return fmt.Errorf("overwrite %s in place: %d bytes, %d allocated: %w", p, len(data), allocated, ErrNoRoom)
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storage: overwrite %s in place: %w", p, err)
	}
	return nil
}
