package weights

import (
	"errors"
	"testing"
)

func TestParseOverwrite(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		groups int   // the groups of a spec that parses
		err    error // the sentinel of one that does not
	}{
		{"LM0= 0.5", 1, nil},
		{"LM0= 0.5 TranslationModel0= 0.2 0.2 0.2 0.2", 2, nil},
		{"", 0, ErrEmpty},
		{"  # a comment only", 0, ErrEmpty},
		{"[feature]\nKENLM name=LM0", 0, ErrEmpty},
		{"pp_x 1", 0, ErrSyntax},
		{"LM0= x", 0, ErrNumber},
		{"[weight-overwrite]\nLM0= 1", 0, ErrSyntax},
	} {
		s, err := ParseOverwrite(tc.spec, nil)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%q: error %v, want %v", tc.spec, err, tc.err)
		case tc.err == nil && err != nil:
			t.Errorf("%q: %v", tc.spec, err)
		case tc.err == nil && len(s.Groups) != tc.groups:
			t.Errorf("%q: %d groups, want %d", tc.spec, len(s.Groups), tc.groups)
		}
	}
	s, err := ParseOverwrite("LM0= 0.5 TranslationModel0= 0.2 0.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Value("TranslationModel0_1"); got != 0.1 {
		t.Errorf("TranslationModel0_1 = %v, want 0.1", got)
	}
}
