//go:build unix

package external

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// watchdog is the program of the process that kills a child's group when
// this process dies: it waits for the end of file on descriptor 3, the
// read end of a pipe whose only write end this process holds, then kills
// its own process group (kill 0).
const watchdog = "read _ <&3; kill -9 0"

// RunGroup runs cmd (not started) in a process group of its own and
// returns its Run error. The group dies with cmd's cancellation, with
// cmd's end (what cmd left running in it is killed), and with this
// process, even killed by SIGKILL: a decoder or feature command, its
// wrapper script's children and their children with it. Output pipes a
// killed grandchild holds open are given up after WaitDelay.
//
// How: the group's leader is a watchdog, /bin/sh running `read _ <&3;
// kill -9 0`, started first, and cmd joins its group. Its descriptor 3 is
// the read end of a pipe whose write end only this process holds (Go opens
// descriptors close-on-exec, so no other child inherits it): when this
// process dies, however, the kernel closes the write end, read sees the
// end of file and the watchdog kills the group, cmd and whatever cmd
// started, wherever they were re-parented. Linux's Pdeathsig would
// signal cmd alone (not its children), and on the death of the OS thread
// that forked it rather than of the process (Go retires threads), so it
// is not used. The watchdog being the leader also keeps the group's id
// from being reused while cmd's group is killed.
func RunGroup(cmd *exec.Cmd) error {
	cmd.WaitDelay = WaitDelay
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("external: the watchdog's pipe: %w", err)
	}
	defer w.Close()
	watch := exec.Command("/bin/sh", "-c", watchdog)
	watch.ExtraFiles = []*os.File{r}
	watch.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = watch.Start()
	r.Close()
	if err != nil {
		return fmt.Errorf("external: the watchdog: %w", err)
	}
	pgid := watch.Process.Pid
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	cmd.Cancel = func() error { return syscall.Kill(-pgid, syscall.SIGKILL) }
	err = cmd.Run()
	w.Close() // the watchdog kills what is left of the group, and itself
	watch.Wait()
	return err
}
