//go:build !unix

package external

import "os/exec"

// RunGroup runs cmd: its cancellation kills the process alone, and its
// output pipes are given up WaitDelay after.
func RunGroup(cmd *exec.Cmd) error {
	cmd.WaitDelay = WaitDelay
	return cmd.Run()
}
