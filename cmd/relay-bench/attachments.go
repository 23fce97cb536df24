package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"relay/relayclient"
)

// The attachments scenario: the relay's upload and download throughput
// of 1 MiB and 50 MiB attachments (random bytes, as ciphertext is; the
// client's sealing is not counted), against the physical floor measured
// in the same run: a sequential write of the same size to the disk that
// holds PostgreSQL's data, made durable with fsync. It also reports how
// much the relay's resident memory grows while a 50 MiB attachment goes
// up and down: parts are held one at a time, never a whole file.

const (
	smallAttachment = 1 << 20
	largeAttachment = 50 << 20
	smallFiles      = 32 // 1 MiB attachments per round, over smallWorkers
	smallWorkers    = 4
	largeFiles      = 2
)

func (b *bench) attachmentsScenario() ([]result, error) {
	ctx := context.Background()
	devs, _, err := b.account(2)
	if err != nil {
		return nil, err
	}
	up, down := devs[0], devs[1]
	floor, where, err := b.diskFloor(128 << 20)
	if err != nil {
		return nil, err
	}
	var out []result
	out = append(out, result{"attach", "disk sequential write + fsync", floor, "MiB/s", where})

	// 1 MiB: smallWorkers uploaders at once, each part after the other
	// as the web client sends them.
	small := randomData(smallAttachment)
	ids := make([]string, smallFiles)
	upRate, err := throughput(smallFiles*len(small), func() error {
		return parallel(smallWorkers, smallFiles, func(i int) error {
			a, err := up.UploadAttachment(ctx, small)
			ids[i] = a.ID
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("1 MiB uploads: %w", err)
	}
	downRate, err := throughput(smallFiles*len(small), func() error {
		return parallel(smallWorkers, smallFiles, func(i int) error { return readAll(ctx, down, ids[i], len(small)) })
	})
	if err != nil {
		return nil, fmt.Errorf("1 MiB downloads: %w", err)
	}
	out = append(out,
		result{"attach", "upload 1 MiB", upRate, "MiB/s", fmt.Sprintf("%d files, %d at once", smallFiles, smallWorkers)},
		result{"attach", "download 1 MiB", downRate, "MiB/s", fmt.Sprintf("%d files, %d at once", smallFiles, smallWorkers)},
		result{"attach", "upload 1 MiB / disk write", upRate / floor, "ratio", "goal ≥ 0.5"},
		result{"attach", "download 1 MiB / disk write", downRate / floor, "ratio", ""})
	for _, id := range ids {
		if err := up.DeleteAttachment(ctx, id); err != nil {
			return nil, err
		}
	}

	// 50 MiB: one after the other, with the relay's memory watched.
	large := randomData(largeAttachment)
	ids = make([]string, largeFiles)
	before, _, _ := b.settledMemory()
	peak := b.watchMemory()
	// Where an upload's and a download's time goes: CPU per MiB of the
	// relay, PostgreSQL and the load, and the WAL an uploaded MiB writes.
	mib := float64(largeFiles*len(large)) / (1 << 20)
	wal0, _ := b.walLSN()
	cpu0 := b.cpu()
	upRate, err = throughput(largeFiles*len(large), func() error {
		for i := range ids {
			a, err := up.UploadAttachment(ctx, large)
			if err != nil {
				return err
			}
			ids[i] = a.ID
		}
		return nil
	})
	if err != nil {
		peak()
		return nil, fmt.Errorf("50 MiB uploads: %w", err)
	}
	upCPU := b.cpu().sub(cpu0).per(mib)
	wal1, _ := b.walLSN()
	cpu0 = b.cpu()
	downRate, err = throughput(largeFiles*len(large), func() error {
		for _, id := range ids {
			if err := readAll(ctx, down, id, len(large)); err != nil {
				return err
			}
		}
		return nil
	})
	downCPU := b.cpu().sub(cpu0).per(mib)
	grew := peak() - before
	if err != nil {
		return nil, fmt.Errorf("50 MiB downloads: %w", err)
	}
	cpuNote := func(u cpuUse) string {
		return fmt.Sprintf("relay %.1f, PostgreSQL %.1f, load %.1f", u.relay, u.postgres, u.load)
	}
	out = append(out,
		result{"attach", "upload 50 MiB", upRate, "MiB/s", fmt.Sprintf("%d files, one at a time", largeFiles)},
		result{"attach", "download 50 MiB", downRate, "MiB/s", fmt.Sprintf("%d files, one at a time", largeFiles)},
		result{"attach", "upload 50 MiB / disk write", upRate / floor, "ratio", "goal ≥ 0.5"},
		result{"attach", "download 50 MiB / disk write", downRate / floor, "ratio", ""},
		result{"attach", "upload 50 MiB: CPU per MiB", upCPU.total(), "ms", cpuNote(upCPU)},
		result{"attach", "download 50 MiB: CPU per MiB", downCPU.total(), "ms", cpuNote(downCPU)},
		result{"attach", "upload 50 MiB: WAL per MiB", float64(wal1-wal0) / (1 << 20) / mib, "MiB", "the parts' bytes once in the WAL, then in the table"},
		result{"attach", "relay RSS growth, 50 MiB up and down", float64(grew) / (1 << 20), "MiB", "a whole file in memory would be ≥ 50"})
	for _, id := range ids {
		if err := up.DeleteAttachment(ctx, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diskFloor writes n bytes in 1 MiB writes to a file beside PostgreSQL's
// data directory (the same disk), fsyncs it, and returns MiB/s and where.
func (b *bench) diskFloor(n int) (float64, string, error) {
	dir := os.TempDir()
	var data string
	if err := b.pool.QueryRow(context.Background(), `SHOW data_directory`).Scan(&data); err == nil {
		dir = filepath.Dir(data)
	}
	f, err := os.CreateTemp(dir, "relay-bench-disk-*.tmp")
	if err != nil {
		f, err = os.CreateTemp("", "relay-bench-disk-*.tmp")
		if err != nil {
			return 0, "", err
		}
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := randomData(1 << 20)
	rate, err := throughput(n, func() error {
		for written := 0; written < n; written += len(buf) {
			if _, err := f.Write(buf); err != nil {
				return err
			}
		}
		return f.Sync()
	})
	return rate, "in " + filepath.Dir(f.Name()), err
}

// watchMemory samples the relay's resident memory every 50 ms until the
// function it returns is called, which gives the highest seen.
func (b *bench) watchMemory() func() int64 {
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, _, _ := b.memory(); rss > peak.Load() {
				peak.Store(rss)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return peak.Load()
	}
}

// throughput runs f and returns n bytes over its time, in MiB/s.
func throughput(n int, f func() error) (float64, error) {
	start := time.Now()
	if err := f(); err != nil {
		return 0, err
	}
	return float64(n) / (1 << 20) / time.Since(start).Seconds(), nil
}

// parallel runs f(0..n-1) on workers goroutines and returns the first
// error.
func parallel(workers, n int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// readAll downloads attachment id to nowhere, checking its length.
func readAll(ctx context.Context, c *relayclient.Client, id string, want int) error {
	resp, err := c.DownloadAttachment(ctx, id, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download: %s", resp.Status)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && n != int64(want) {
		err = errors.New("download: short")
	}
	return err
}

func randomData(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
