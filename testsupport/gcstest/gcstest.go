// Package gcstest is test support: GCS clients that talk to an in-process
// emulator or to a server that is always unavailable, both on loopback,
// for the tests of every package that reads or writes gs:// paths.
package gcstest

import (
	"context"
	"net/http"
	"net/http/httptest"
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

func client(tb testing.TB, url string) *gcs.Client {
	tb.Helper()
	c, err := gcs.NewClient(context.Background(), option.WithEndpoint(url+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		tb.Fatalf("gcstest: client: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
