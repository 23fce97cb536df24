package main

import (
	"testing"
	"time"
)

func TestPausesMergeLateDeliveriesAndNameWhatLinesUp(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	at := func(n int) time.Time { return t0.Add(ms(n)) }
	deliveries := []span{
		{at(0), ms(3)},     // on time
		{at(100), ms(45)},  // late: 100–145
		{at(120), ms(40)},  // late, overlaps: the pause runs to 160
		{at(130), ms(5)},   // on time inside the pause: not counted
		{at(300), ms(31)},  // late, on its own: 300–331
		{at(500), ms(30)},  // exactly the limit: not late
		{at(161), ms(200)}, // late, starts just after the first pause ends: its own
	}
	ps := pauses(deliveries, pauseLate)
	if len(ps) != 2 {
		t.Fatalf("pauses = %d, want 2: %+v", len(ps), ps)
	}
	if !ps[0].from.Equal(at(100)) || !ps[0].to.Equal(at(160)) || ps[0].late != 2 {
		t.Errorf("first pause = %v–%v with %d late, want +100–+160 ms with 2", ps[0].from.Sub(t0), ps[0].to.Sub(t0), ps[0].late)
	}
	// The one from 161 ms to 361 ms swallows the one sent at 300 ms.
	if !ps[1].from.Equal(at(161)) || !ps[1].to.Equal(at(361)) || ps[1].late != 2 {
		t.Errorf("second pause = %v–%v with %d late, want +161–+361 ms with 2", ps[1].from.Sub(t0), ps[1].to.Sub(t0), ps[1].late)
	}

	w := &pauseWatch{
		syncs: []span{
			{at(90), ms(25)},  // overlaps the first pause from before it
			{at(140), ms(2)},  // inside the first, fast
			{at(170), ms(1)},  // inside the second, fast
			{at(400), ms(60)}, // after every pause
		},
		stalls: []span{{at(200), ms(12)}},
		steals: []span{
			{at(50), ms(10)},  // read at 60 ms: before every pause
			{at(155), ms(20)}, // read at 165 ms: in both pauses
			{at(362), ms(30)}, // read at 372 ms: after every pause
		},
		waits: []waitSample{
			{at(110), map[string]int{"IO:WALSync": 1, "CPU": 2}},
			{at(150), map[string]int{"IO:WALSync": 1, "LWLock:WALWrite": 3}},
			{at(250), map[string]int{"CPU": 1}},
			{at(600), map[string]int{"Lock:tuple": 9}},
		},
	}
	w.explain(ps)
	if ps[0].sync != ms(25) || ps[0].stall != 0 {
		t.Errorf("first pause: slowest sync %v, stall %v; want 25ms and none", ps[0].sync, ps[0].stall)
	}
	if ps[0].steal != ms(20) || ps[1].steal != ms(20) {
		t.Errorf("stolen in the pauses: %v and %v, want 20ms in each", ps[0].steal, ps[1].steal)
	}
	if got, want := topWaits(ps[0].waits, 2), "LWLock:WALWrite ×3, CPU ×2"; got != want {
		t.Errorf("first pause's waits = %q, want %q", got, want)
	}
	if ps[1].sync != ms(1) || ps[1].stall != ms(12) {
		t.Errorf("second pause: slowest sync %v, stall %v; want 1ms and 12ms", ps[1].sync, ps[1].stall)
	}
	if got, want := topWaits(ps[1].waits, 4), "CPU ×1"; got != want {
		t.Errorf("second pause's waits = %q, want %q", got, want)
	}
	if got := topWaits(nil, 3); got != "none sampled" {
		t.Errorf("no samples: %q", got)
	}

	// The control: the windows moved by whole steps, wrapped in the phase.
	moved := w.shifted(ps[:1], at(0), at(1000))
	if len(moved) != pauseShifts {
		t.Fatalf("moved windows = %d, want %d", len(moved), pauseShifts)
	}
	for k, q := range moved {
		off := (100*time.Millisecond + time.Duration(k+1)*pauseShift) % time.Second
		if !q.from.Equal(t0.Add(off)) || q.to.Sub(q.from) != ms(60) || q.late != 2 {
			t.Errorf("moved window %d = +%v for %v with %d late, want +%v for 60ms with 2", k+1, q.from.Sub(t0), q.to.Sub(q.from), q.late, off)
		}
	}
	sync, stall, stolen := lineUp(ps)
	if sync != 50 || stall != 50 || stolen != 100*float64(ms(40))/float64(ms(260)) {
		t.Errorf("lineUp = %.1f %%, %.1f %%, %.2f per 100 ms; want 50, 50, %.2f", sync, stall, stolen, 100*float64(ms(40))/float64(ms(260)))
	}
}
