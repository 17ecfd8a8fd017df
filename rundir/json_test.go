package rundir

import (
	"strings"
	"testing"
)

func TestUnmarshalStrict(t *testing.T) {
	type value struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	for _, tc := range []struct {
		in   string
		want value
		err  string // in the error; "" for none
	}{
		{`{"a":1,"b":"x"}`, value{1, "x"}, ""},
		{" {\"a\":2}\n\t", value{A: 2}, ""},
		{`{"a":1,"c":2}`, value{}, `unknown field "c"`},
		{`{"a":1} {"a":2}`, value{}, "text after the JSON value"},
		{`{"a":1} x`, value{}, "text after the JSON value"},
		{`{"a":1`, value{}, "unexpected EOF"},
		{``, value{}, "unexpected EOF"},
		{`{"a":"1"}`, value{}, "cannot unmarshal string"},
	} {
		var v value
		err := UnmarshalStrict([]byte(tc.in), &v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, v, err, tc.want)
		}
	}
}
