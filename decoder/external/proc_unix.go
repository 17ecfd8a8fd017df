//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group, so that a decoder started by a
// wrapper script dies with the script.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
