package gcstest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	gcs "cloud.google.com/go/storage"
)

// Fault says what a FaultyFake does to one request.
type Fault int

const (
	// Pass forwards the request to the emulator.
	Pass Fault = iota
	// Reject answers 400 Bad Request without forwarding: the write is not
	// done, and the client does not retry.
	Reject
	// LoseAnswer forwards the request, so the write is done, but answers
	// 503 Service Unavailable, as when a connection drops after the server
	// acted: the client retries a request it believes failed.
	LoseAnswer
)

// FaultyFake is Fake behind a proxy that consults fault for each upload
// (a request whose path starts with /upload/) before it reaches the
// emulator; body is the request's body (an upload's body names its
// object). fault is called under a lock, one request at a time.
func FaultyFake(tb testing.TB, fault func(r *http.Request, body []byte) Fault, buckets ...string) *gcs.Client {
	tb.Helper()
	_, srv := Fake(tb, buckets...)
	target, err := url.Parse(srv.URL())
	if err != nil {
		tb.Fatalf("gcstest: %v", err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/upload/") {
			proxy.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		f := fault(r, body)
		mu.Unlock()
		switch f {
		case Reject:
			http.Error(w, "gcstest: injected rejection", http.StatusBadRequest)
		case LoseAnswer:
			proxy.ServeHTTP(httptest.NewRecorder(), r)
			http.Error(w, "gcstest: injected lost answer", http.StatusServiceUnavailable)
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	tb.Cleanup(front.Close)
	return client(tb, front.URL)
}
