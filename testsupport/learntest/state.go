package learntest

import (
	"bytes"
	"encoding"
	"testing"
)

// State is a learner whose state can be saved and restored.
type State interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// RoundTrip restores data into l and reports whether l took it; if it
// did, it fails t unless l saves data back, byte for byte.
func RoundTrip(t testing.TB, l State, data []byte) bool {
	t.Helper()
	if err := l.UnmarshalBinary(data); err != nil {
		return false
	}
	b, err := l.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, data) {
		t.Fatalf("round trip changed the state")
	}
	return true
}
