//go:build !unix

package external

import "os/exec"

// KillGroup leaves cmd as it is: its cancellation kills the process
// alone.
func KillGroup(cmd *exec.Cmd) {}
