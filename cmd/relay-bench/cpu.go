package main

import (
	"os"
	"strconv"
	"strings"
)

// cpuUse is CPU time used, in seconds, by the relay process, by every
// process named postgres on the machine (the private cluster's server
// processes; an idle system cluster adds next to nothing), and by the load
// (this process and pgbench), each with its exited children. It tells
// where a phase's CPU went, which on a machine that runs everything on the
// same cores is what limits ingest. With several relay instances, relay is
// their sum and instances each one's share; peer is ntfy's, when it runs.
type cpuUse struct {
	relay, postgres, load, peer float64
	instances                   []float64
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times; 100 on Linux.
const clockTicks = 100

func (b *bench) cpu() cpuUse {
	var u cpuUse
	relays := map[int]int{} // pid → instance index
	if b.cmd != nil {
		relays[b.cmd.Process.Pid] = 0
	}
	for i, in := range b.extra {
		relays[in.cmd.Process.Pid] = i + 1
	}
	u.instances = make([]float64, 1+len(b.extra))
	peerPid := 0
	if b.peer != nil {
		peerPid = b.peer.Process.Pid
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
		i, isRelay := relays[pid]
		switch {
		case isRelay:
			u.relay += secs
			u.instances[i] += secs
		case pid == peerPid && peerPid != 0:
			u.peer += secs
		case name == "postgres":
			u.postgres += secs
		case pid == self || name == "pgbench":
			u.load += secs
		}
	}
	return u
}

func (u cpuUse) sub(v cpuUse) cpuUse {
	d := cpuUse{relay: u.relay - v.relay, postgres: u.postgres - v.postgres, load: u.load - v.load, peer: u.peer - v.peer}
	for i := range u.instances {
		d.instances = append(d.instances, u.instances[i])
		if i < len(v.instances) {
			d.instances[i] -= v.instances[i]
		}
	}
	return d
}

// per is the use per unit of work, in milliseconds.
func (u cpuUse) per(n float64) cpuUse {
	if n <= 0 {
		return cpuUse{}
	}
	p := cpuUse{relay: u.relay * 1000 / n, postgres: u.postgres * 1000 / n, load: u.load * 1000 / n, peer: u.peer * 1000 / n}
	for _, x := range u.instances {
		p.instances = append(p.instances, x*1000/n)
	}
	return p
}

func (u cpuUse) total() float64 { return u.relay + u.postgres + u.load + u.peer }
