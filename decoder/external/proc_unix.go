//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// KillGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group, so that a program started by a
// wrapper script (a decoder, a feature command) dies with the script.
func KillGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
