package pipelines

import (
	"flag"
	"testing"
)

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

// TestRunnerWorkers: the default of Options.DecodeBatches is Beam's
// --num_workers, else --max_num_workers, else 1.
func TestRunnerWorkers(t *testing.T) {
	for _, name := range []string{"num_workers", "max_num_workers"} {
		f := flag.CommandLine.Lookup(name)
		if f == nil {
			t.Fatalf("Beam registers no --%s", name)
		}
		old := f.Value.String()
		t.Cleanup(func() { f.Value.Set(old) })
	}
	for _, tc := range []struct {
		num, max string
		want     int
	}{
		{"0", "0", 1},
		{"0", "8", 8},
		{"3", "8", 3},
		{"5", "0", 5},
	} {
		flag.CommandLine.Set("num_workers", tc.num)
		flag.CommandLine.Set("max_num_workers", tc.max)
		if got := RunnerWorkers(); got != tc.want {
			t.Errorf("--num_workers %s --max_num_workers %s: %d workers, want %d", tc.num, tc.max, got, tc.want)
		}
	}
}
