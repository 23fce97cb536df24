package main

import (
	"os"
	"strconv"
	"strings"
)

// cpuUse is CPU time used, in seconds, by the relay process, by every
// process named postgres on the machine (the private cluster's server
// processes; an idle system cluster adds next to nothing), and by the load
// (this process and pgbench), each with its exited children. It tells where a phase's CPU went, which on a
// machine that runs everything on the same cores is what limits ingest.
type cpuUse struct{ relay, postgres, load float64 }

// clockTicks is USER_HZ, the unit of /proc/PID/stat times; 100 on Linux.
const clockTicks = 100

func (b *bench) cpu() cpuUse {
	var u cpuUse
	relayPid := 0
	if b.cmd != nil {
		relayPid = b.cmd.Process.Pid
	}
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		name := s[open+1 : close]
		f := strings.Fields(s[close+1:])
		if len(f) < 13 {
			continue
		}
		// utime, stime, then cutime and cstime: the time of children that
		// have exited (a backend that closed, pgbench once it is done).
		var ticks float64
		for _, i := range []int{11, 12, 13, 14} {
			t, _ := strconv.ParseFloat(f[i], 64)
			ticks += t
		}
		secs := ticks / clockTicks
		switch {
		case pid == relayPid:
			u.relay += secs
		case name == "postgres":
			u.postgres += secs
		case pid == self || name == "pgbench":
			u.load += secs
		}
	}
	return u
}

func (u cpuUse) sub(v cpuUse) cpuUse {
	return cpuUse{u.relay - v.relay, u.postgres - v.postgres, u.load - v.load}
}

// per is the use per unit of work, in milliseconds.
func (u cpuUse) per(n float64) cpuUse {
	if n <= 0 {
		return cpuUse{}
	}
	return cpuUse{u.relay * 1000 / n, u.postgres * 1000 / n, u.load * 1000 / n}
}

func (u cpuUse) total() float64 { return u.relay + u.postgres + u.load }
