package cliflag

import (
	"slices"
	"testing"
)

func TestExpandMulti(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"several values", []string{"--nbest", "a", "b", "-r", "r"}, []string{"--nbest", "a", "--nbest", "b", "-r", "r"}},
		{"single dash", []string{"-nbest", "a", "b"}, []string{"-nbest", "a", "-nbest", "b"}},
		{"other flags untouched", []string{"--out", "d", "--nbest", "a"}, []string{"--out", "d", "--nbest", "a"}},
		{"equals form", []string{"--nbest=a", "b"}, []string{"--nbest=a", "b"}},
		{"no value", []string{"--nbest"}, []string{"--nbest"}},
		{"after --", []string{"--", "--nbest", "a", "b"}, []string{"--", "--nbest", "a", "b"}},
	}
	for _, tc := range tests {
		if got := ExpandMulti(tc.in, []string{"nbest", "r"}); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ExpandMulti(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
