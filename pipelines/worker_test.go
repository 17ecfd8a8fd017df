package pipelines

import "testing"

func TestIsWorker(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want bool
	}{
		{"boot program's command line", []string{"--worker=true", "--id=1-1", "--logging_endpoint=localhost:1", "--control_endpoint=localhost:2", "--semi_persist_dir=/tmp"}, true},
		{"worker flag last", []string{"--id=7", "--logging_endpoint=localhost:1", "--control_endpoint=localhost:2", "--worker=true"}, true},
		{"single dash, no value", []string{"-worker"}, true},
		{"value 1", []string{"--worker=1"}, true},
		{"separate value of another flag", []string{"--id", "7", "--worker"}, true},
		{"worker false", []string{"--worker=false", "--id=7"}, false},
		{"bad boolean", []string{"--worker=yes"}, false},
		{"endpoints without --worker", []string{"--id=7", "--logging_endpoint=localhost:1", "--control_endpoint=localhost:2"}, false},
		{"no arguments", nil, false},
		{"sub-command", []string{"tune", "--worker=true"}, false},
		{"help", []string{"help"}, false},
		{"after --", []string{"--", "--worker=true"}, false},
		{"similar name", []string{"--worker_binary=/bin/x", "--workers=2"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsWorker(tc.args); got != tc.want {
				t.Errorf("IsWorker(%q) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}
