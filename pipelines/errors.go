package pipelines

import (
	"fmt"
	"strings"
)

// PipelineError is an epoch's pipeline that failed, or the one that checks
// the model before the first epoch (Epoch 0). The runner's error
// holds its whole report (the failed stage's plan, every wrapping
// layer, worker stack traces: kilobytes); Error gives the cause alone, on
// one line, and Detail the report.
type PipelineError struct {
	// Epoch is the 1-based epoch whose launch failed; 0 is the model
	// check.
	Epoch int
	// Err is the runner's error.
	Err error
}

func (e *PipelineError) Error() string {
	if e.Epoch == 0 {
		return "pipelines: loading the model on a worker failed: " + Cause(e.Err)
	}
	return fmt.Sprintf("pipelines: epoch %d failed: %s", e.Epoch, Cause(e.Err))
}

func (e *PipelineError) Unwrap() error { return e.Err }

// Detail returns the runner's whole report of the failure.
func (e *PipelineError) Detail() string { return e.Err.Error() }

// maxCause bounds the length of Cause's line.
const maxCause = 600

// Cause returns the innermost cause of a runner's error on one line: the
// error a DoFn returned (or the panic it raised), without the layers the
// runner wrapped around it. Beam's runners separate the layers with
// "caused by:" lines and end a DoFn's with "…] failed:" before its
// error. A line longer than maxCause keeps its start and its end.
func Cause(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.LastIndex(s, "caused by:"); i >= 0 {
		s = s[i+len("caused by:"):]
	}
	if i := strings.LastIndex(s, "] failed:"); i >= 0 {
		s = s[i+len("] failed:"):]
	}
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	if line == "" {
		line = strings.Join(strings.Fields(err.Error()), " ")
	}
	if len(line) > maxCause {
		// Keep the start and the end, where an error names its cause (a
		// decoder's standard error ends it; decoder/external).
		head, tail := line[:maxCause/3], line[len(line)-(maxCause-maxCause/3):]
		line = strings.ToValidUTF8(head, "") + " … " + strings.ToValidUTF8(tail, "")
	}
	return line
}
