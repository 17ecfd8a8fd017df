//go:build !unix

package external

import "os/exec"

// killGroup leaves cmd as it is: its cancellation kills the decoder
// process alone.
func killGroup(cmd *exec.Cmd) {}
