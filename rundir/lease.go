package rundir

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// DefaultLeaseTTL is how long a lease stays live without renewal. The
// holder renews it every third of that; a holder killed with -9 blocks
// others for at most this long (in its own PID namespace, not at all: a
// lease whose process is gone is taken over at once).
const DefaultLeaseTTL = 90 * time.Second

// LeaseInfo is the content of a lease file: who holds it.
//
// Whether a lease is live is judged by the store's time and the judge's
// TTL (its LeaseOptions), not by anything the holder wrote: a lease file
// not rewritten (renewed) for the judge's TTL, by its modification time on
// the store (a local file's mtime, a GCS object's "updated") against the
// judge's clock, is stale whatever its Expiry and TTLSeconds say, so a
// holder whose clock runs ahead, a hand-written expiry in 2099 or a
// ttl_seconds of a year blocks nobody for longer than the judge's TTL. A
// modification time ahead of the judge's clock counts as the time the
// judge's user first saw that version of the file (firstSeen: the judge
// cannot tell when it was written), so such a lease, unless renewed, is
// stale a TTL after it was first seen, not a TTL after the time it
// claims. Before that a lease is live
// unless its process is known to be gone: the judge runs on the same
// kernel (BootID) in the same PID namespace (PIDNS), and the PID is not
// running or runs a process started at another time (StartTime: the PID
// was reused). When the judge cannot tell (another machine or container,
// a lease of an earlier version without these fields) it waits for the
// TTL rather than take a lease that may be live.
type LeaseInfo struct {
	// Owner says what holds it ("mtune tune", "mtune retrain").
	Owner string `json:"owner"`
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	// BootID is the holder's kernel's boot id
	// (/proc/sys/kernel/random/boot_id), PIDNS its PID namespace
	// (/proc/self/ns/pid) and StartTime its process's start time in clock
	// ticks since boot (/proc/PID/stat); "" and 0 where unknown.
	BootID    string `json:"boot_id,omitempty"`
	PIDNS     string `json:"pid_ns,omitempty"`
	StartTime uint64 `json:"start_time,omitempty"`
	// Token identifies one holding: a new one each time it is taken.
	Token string `json:"token"`
	// TTLSeconds is the holder's lease lifetime without renewal, for
	// people: a judge applies its own. Read from a file, anything but a
	// positive finite number is 0.
	TTLSeconds float64 `json:"ttl_seconds,omitempty"`
	// Since is when it was taken, Expiry when it lapses unless renewed,
	// both by the holder's clock: for people, not for judging.
	Since  time.Time `json:"since"`
	Expiry time.Time `json:"expiry"`
}

// parseLease decodes a lease file. Its ttl_seconds, which no judge uses,
// may be anything: a value that is not a positive finite number (a
// string, a negative number, one out of float64's range) is read as 0.
func parseLease(data []byte) (LeaseInfo, error) {
	type plain LeaseInfo // without this method set
	var f struct {
		*plain
		TTLSeconds json.RawMessage `json:"ttl_seconds"`
	}
	var h LeaseInfo
	f.plain = (*plain)(&h)
	if err := json.Unmarshal(data, &f); err != nil {
		return LeaseInfo{}, err
	}
	if ttl, err := strconv.ParseFloat(string(f.TTLSeconds), 64); err == nil && ttl > 0 && !math.IsInf(ttl, 0) {
		h.TTLSeconds = ttl
	}
	return h, nil
}

// staleAt returns when the lease file path, at version v written at mod
// on the store, goes stale unless renewed, judged at now with the judge's
// ttl: a mod after now counts as the time the judge first saw version v
// (firstSeen).
func staleAt(path string, v int64, mod, now time.Time, ttl time.Duration) time.Time {
	if mod.After(now) {
		mod = firstSeen(path, v, now)
	}
	return mod.Add(ttl)
}

// firstSeen returns when this user first saw version v of the lease file
// path, now if never: a record of (path, version, time) in the user's
// cache folder (os.UserCacheDir()/mtune/lease-seen/, one small file per
// path named by its hash), so that a lease whose store time is in the
// future (a clock set back since it was written, a touched file) goes
// stale a TTL after its first judgement instead of blocking until the
// time it claims. The record is advisory: without a cache folder every
// judgement counts as the first (the lease then blocks until its store
// time, as a lease judged by that time alone would).
func firstSeen(path string, v int64, now time.Time) time.Time {
	base, err := os.UserCacheDir()
	if err != nil {
		return now
	}
	sum := sha256.Sum256([]byte(path))
	file := filepath.Join(base, "mtune", "lease-seen", hex.EncodeToString(sum[:12]))
	want := strconv.FormatInt(v, 10) + " "
	if data, err := os.ReadFile(file); err == nil && strings.HasPrefix(string(data), want) {
		if ns, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(string(data), want)), 10, 64); err == nil {
			if seen := time.Unix(0, ns); !seen.After(now) {
				return seen
			}
		}
	}
	if os.MkdirAll(filepath.Dir(file), 0o755) == nil {
		_ = storage.WriteFile(context.Background(), file, []byte(want+strconv.FormatInt(now.UnixNano(), 10)+"\n"))
	}
	return now
}

// BusyError is returned by AcquireLease when another process holds the
// lease.
type BusyError struct {
	Path   string
	Holder LeaseInfo
	// Stale is when the lease goes stale unless renewed: its last write
	// on the store plus its TTL.
	Stale time.Time
	// Unsure says the holder's process could not be checked from here
	// (another host, container or kernel): the lease is waited out.
	Unsure bool
}

func (e *BusyError) Error() string {
	h := e.Holder
	msg := fmt.Sprintf("rundir: %s is held by %s (pid %d on %s, since %s) until %s unless renewed; another run is using it",
		e.Path, h.Owner, h.PID, h.Host, h.Since.Format(time.RFC3339), e.Stale.UTC().Format(time.RFC3339))
	if e.Unsure {
		msg += " (its process cannot be checked from here, so the lease is taken over only once it goes stale)"
	}
	return msg
}

// ErrBusy is matched (errors.Is) by every BusyError.
var ErrBusy = errors.New("rundir: lease held by another process")

// Is makes errors.Is(err, ErrBusy) true for a BusyError.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ErrLeaseLost is the cause of a Hold context's cancellation when the lease
// was taken over by another process (it had expired: this process could
// not renew it in time) or could not be renewed before it lapsed.
var ErrLeaseLost = errors.New("rundir: lease lost")

// LeaseOptions configure AcquireLease; zero fields mean the defaults.
type LeaseOptions struct {
	// Owner is recorded in the lease; "" means "mtune".
	Owner string
	// TTL is the lease's lifetime without renewal; 0 means
	// DefaultLeaseTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Lease is a held lease on a file (local or gs://). It is renewed by Hold
// and given up by Release.
type Lease struct {
	path string
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	info    LeaseInfo
	version int64
	stop    chan struct{}
	done    chan struct{}
}

// AcquireLease takes the lease at path, creating the file. It fails with
// a *BusyError if a live lease of another holder is there. A stale lease
// (not renewed for its TTL, by the store's time: see LeaseInfo), or one
// whose holder's process is known to be gone, is taken over. Two
// processes racing for one lease cannot both win: the write is
// conditional on the version read (storage.WriteIfVersion).
func AcquireLease(ctx context.Context, path string, o LeaseOptions) (*Lease, error) {
	if o.Owner == "" {
		o.Owner = "mtune"
	}
	if o.TTL == 0 {
		o.TTL = DefaultLeaseTTL
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("rundir: lease lifetime %v is negative", o.TTL)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var tok [12]byte
	rand.Read(tok[:])
	me := thisProcess()
	l := &Lease{path: path, ttl: o.TTL, now: o.Now}
	for try := 0; try < 5; try++ {
		data, v, mod, err := storage.ReadVersionTime(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("rundir: lease: %w", err)
		}
		if v != 0 {
			cur, err := parseLease(data)
			if err != nil {
				return nil, fmt.Errorf("rundir: lease %s is not a lease file (%v): remove it if no run is using the folder", path, err)
			}
			now := o.Now()
			if stale := staleAt(path, v, mod, now, o.TTL); now.Before(stale) {
				switch holderProcess(cur, me) {
				case gone:
				case unsure:
					return nil, &BusyError{Path: path, Holder: cur, Stale: stale, Unsure: true}
				default:
					return nil, &BusyError{Path: path, Holder: cur, Stale: stale}
				}
			}
		}
		now := o.Now().UTC()
		info := me
		info.Owner, info.Token, info.TTLSeconds = o.Owner, hex.EncodeToString(tok[:]), o.TTL.Seconds()
		info.Since, info.Expiry = now, now.Add(o.TTL)
		b, _ := json.Marshal(info)
		nv, err := storage.WriteIfVersion(ctx, path, append(b, '\n'), v)
		if errors.Is(err, storage.ErrPrecondition) {
			continue // somebody else wrote it in between: look again
		}
		if err != nil {
			return nil, fmt.Errorf("rundir: lease: %w", err)
		}
		l.info, l.version = info, nv
		return l, nil
	}
	return nil, fmt.Errorf("rundir: lease %s: changed under every try", path)
}

// processState is what a judge on this machine knows of a lease holder's
// process.
type processState int

const (
	running processState = iota // it runs: the lease is live
	gone                        // it is gone: the lease is stale
	unsure                      // it cannot be checked from here
)

// holderProcess returns what the process me knows of the process of the
// lease h: running or gone only on the same kernel, in the same PID
// namespace, with its start time recorded; else unsure.
func holderProcess(h LeaseInfo, me LeaseInfo) processState {
	if h.BootID == "" || h.PIDNS == "" || h.StartTime == 0 || h.PID <= 0 ||
		h.BootID != me.BootID || h.PIDNS != me.PIDNS {
		return unsure
	}
	if err := syscall.Kill(h.PID, 0); errors.Is(err, syscall.ESRCH) {
		return gone
	}
	st, err := processStartTime(h.PID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gone // exited since
	case err != nil:
		return unsure
	case st != h.StartTime:
		return gone // its PID now names another process
	}
	return running
}

// thisProcess returns what a lease records of this process: host, pid,
// boot id, PID namespace and start time ("" and 0 where /proc does not
// say).
func thisProcess() LeaseInfo {
	host, _ := os.Hostname()
	me := LeaseInfo{Host: host, PID: os.Getpid()}
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		me.BootID = strings.TrimSpace(string(b))
	}
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		me.PIDNS = ns
	}
	if st, err := processStartTime(me.PID); err == nil {
		me.StartTime = st
	}
	return me
}

// processStartTime returns the start time of process pid in clock ticks
// since boot: field 22 of /proc/PID/stat.
func processStartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces
	// and parentheses: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("rundir: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	const startField = 22 - 3 // f[0] is field 3
	if len(f) <= startField {
		return 0, fmt.Errorf("rundir: /proc/%d/stat: %d fields, want at least 22", pid, len(f)+2)
	}
	st, err := strconv.ParseUint(f[startField], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("rundir: /proc/%d/stat: start time: %w", pid, err)
	}
	return st, nil
}

// Info returns the lease's current content.
func (l *Lease) Info() LeaseInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

// Renew extends the lease by its lifetime. It fails with ErrLeaseLost if
// another process took it over.
func (l *Lease) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	info := l.info
	info.Expiry = l.now().UTC().Add(l.ttl)
	b, _ := json.Marshal(info)
	nv, err := storage.WriteIfVersion(ctx, l.path, append(b, '\n'), l.version)
	if errors.Is(err, storage.ErrPrecondition) {
		return fmt.Errorf("%w: %s was taken over by another process", ErrLeaseLost, l.path)
	}
	if err != nil {
		return fmt.Errorf("rundir: renew lease: %w", err)
	}
	l.info, l.version = info, nv
	return nil
}

// Hold renews the lease every third of its lifetime until Release, and
// returns a context derived from ctx that is cancelled, with cause
// ErrLeaseLost, if the lease is taken over or cannot be renewed before it
// lapses. Work done under the lease should use that context.
func (l *Lease) Hold(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	l.mu.Lock()
	if l.stop != nil {
		l.mu.Unlock()
		panic("rundir: Lease.Hold called twice")
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	stop, done := l.stop, l.done
	l.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := l.Renew(context.WithoutCancel(ctx))
			if errors.Is(err, ErrLeaseLost) || err != nil && !l.now().Before(l.Info().Expiry) {
				cancel(fmt.Errorf("%w: %v", ErrLeaseLost, err))
				return
			}
		}
	}()
	return ctx
}

// Release stops renewing the lease and removes the lease file, unless
// another process has taken it over meanwhile.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	stop, done := l.stop, l.done
	l.stop = nil
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := storage.RemoveIfVersion(ctx, l.path, l.version)
	if errors.Is(err, storage.ErrPrecondition) {
		return nil // taken over: it is not ours to remove
	}
	if err != nil {
		return fmt.Errorf("rundir: release lease: %w", err)
	}
	return nil
}
