package tune

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mtune/mtune/io/storage"
)

// DefaultLeaseTTL is how long a lease stays live without renewal. The
// holder renews it every third of that; a holder killed with -9 blocks
// others for at most this long (on its own host, not at all: a lease
// whose process is gone is taken over at once).
const DefaultLeaseTTL = 90 * time.Second

// LeaseInfo is the content of a lease file: who holds it until when.
type LeaseInfo struct {
	// Owner says what holds it ("mtune tune", "mtune retrain").
	Owner string `json:"owner"`
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	// Token identifies one holding: a new one each time it is taken.
	Token string `json:"token"`
	// Since is when it was taken, Expiry when it lapses unless renewed.
	Since  time.Time `json:"since"`
	Expiry time.Time `json:"expiry"`
}

// BusyError is returned by AcquireLease when another process holds the
// lease.
type BusyError struct {
	Path   string
	Holder LeaseInfo
}

func (e *BusyError) Error() string {
	h := e.Holder
	return fmt.Sprintf("tune: %s is held by %s (pid %d on %s, since %s) until %s unless renewed; another run is using it",
		e.Path, h.Owner, h.PID, h.Host, h.Since.Format(time.RFC3339), h.Expiry.Format(time.RFC3339))
}

// ErrBusy is matched (errors.Is) by every BusyError.
var ErrBusy = errors.New("tune: lease held by another process")

// Is makes errors.Is(err, ErrBusy) true for a BusyError.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ErrLeaseLost is the cause of a Hold context's cancellation when the lease
// was taken over by another process (it had expired: this process could
// not renew it in time) or could not be renewed before it lapsed.
var ErrLeaseLost = errors.New("tune: lease lost")

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
// a *BusyError if a live lease of another holder is there. A lease whose
// expiry has passed, or whose holder's process is gone on this host, is
// taken over. Two processes racing for one lease cannot both win: the
// write is conditional on the version read (storage.WriteIfVersion).
func AcquireLease(ctx context.Context, path string, o LeaseOptions) (*Lease, error) {
	if o.Owner == "" {
		o.Owner = "mtune"
	}
	if o.TTL == 0 {
		o.TTL = DefaultLeaseTTL
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("tune: lease lifetime %v is negative", o.TTL)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	host, _ := os.Hostname()
	var tok [12]byte
	rand.Read(tok[:])
	l := &Lease{path: path, ttl: o.TTL, now: o.Now}
	for try := 0; try < 5; try++ {
		data, v, err := storage.ReadVersion(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("tune: lease: %w", err)
		}
		if v != 0 {
			var cur LeaseInfo
			if err := json.Unmarshal(data, &cur); err != nil {
				return nil, fmt.Errorf("tune: lease %s is not a lease file (%v): remove it if no run is using the folder", path, err)
			}
			if live(cur, host, o.Now()) {
				return nil, &BusyError{Path: path, Holder: cur}
			}
		}
		now := o.Now().UTC()
		info := LeaseInfo{Owner: o.Owner, Host: host, PID: os.Getpid(), Token: hex.EncodeToString(tok[:]),
			Since: now, Expiry: now.Add(o.TTL)}
		b, _ := json.Marshal(info)
		nv, err := storage.WriteIfVersion(ctx, path, append(b, '\n'), v)
		if errors.Is(err, storage.ErrPrecondition) {
			continue // somebody else wrote it in between: look again
		}
		if err != nil {
			return nil, fmt.Errorf("tune: lease: %w", err)
		}
		l.info, l.version = info, nv
		return l, nil
	}
	return nil, fmt.Errorf("tune: lease %s: changed under every try", path)
}

// live reports whether the lease h is still held at now: not expired, and
// on this host its process still runs.
func live(h LeaseInfo, host string, now time.Time) bool {
	if !now.Before(h.Expiry) {
		return false
	}
	if h.Host == host && h.Host != "" && h.PID > 0 && h.PID != os.Getpid() {
		if err := syscall.Kill(h.PID, 0); errors.Is(err, syscall.ESRCH) {
			return false // its process is gone
		}
	}
	return true
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
		return fmt.Errorf("tune: renew lease: %w", err)
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
		panic("tune: Lease.Hold called twice")
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
		return fmt.Errorf("tune: release lease: %w", err)
	}
	return nil
}
