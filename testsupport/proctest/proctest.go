//go:build linux

// Package proctest tells tests what runs on this Linux machine, from
// /proc: whether a process group outlived the process that started it.
package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// GroupRuns reports whether a process of group pgid runs (a zombie, dead
// but not reaped by a PID 1 that does not reap, does not count).
func GroupRuns(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// The fields after the command's name, which is in parentheses
		// and may hold spaces: state, ppid, pgrp, …
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// GroupGone waits up to within for every process of group pgid to end
// and reports whether they did.
func GroupGone(pgid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for GroupRuns(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
