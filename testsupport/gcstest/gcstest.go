// Package gcstest is test support: GCS clients that talk to an in-process
// emulator or to a server that is unavailable (answers 503, refuses
// connections or never answers), all on loopback,
// for the tests of every package that reads or writes gs:// paths.
package gcstest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	gcs "cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
)

// Fake starts a GCS emulator (fake-gcs-server) on loopback for the duration
// of the test, with the given empty buckets, and returns a real GCS client
// that talks HTTP to it, and the emulator.
func Fake(tb testing.TB, buckets ...string) (*gcs.Client, *fakestorage.Server) {
	tb.Helper()
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme: "http",
		Host:   "127.0.0.1",
		// The client reads objects from the endpoint's host through the XML
		// API path /BUCKET/OBJECT; the emulator serves that path only for
		// requests to its public host. Without a port it matches any port.
		PublicHost: "127.0.0.1",
	})
	if err != nil {
		tb.Fatalf("gcstest: starting the emulator: %v", err)
	}
	tb.Cleanup(srv.Stop)
	for _, b := range buckets {
		srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	return client(tb, srv.URL()), srv
}

// Unavailable returns a GCS client whose every request is answered 503
// Service Unavailable, a transient error the client retries.
func Unavailable(tb testing.TB) *gcs.Client {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	tb.Cleanup(srv.Close)
	return client(tb, srv.URL)
}

// Refused returns a GCS client pointed at a loopback port nobody listens
// on: every connection is refused, a transient error the client retries.
func Refused(tb testing.TB) *gcs.Client {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("gcstest: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return client(tb, "http://"+addr)
}

// Silent returns a GCS client pointed at a loopback server that accepts
// connections and never answers on them.
func Silent(tb testing.TB) *gcs.Client {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("gcstest: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return client(tb, "http://"+l.Addr().String())
}

func client(tb testing.TB, url string) *gcs.Client {
	tb.Helper()
	c, err := gcs.NewClient(context.Background(), option.WithEndpoint(url+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		tb.Fatalf("gcstest: client: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
