package model

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
)

// defaultChunkSize is the size of the blocks of whole lines the reader
// hands to the parsers.
const defaultChunkSize = 2 << 20

// chunkJob is a block of whole lines and the number of its first line,
// or a read error, which ends the stream.
type chunkJob struct {
	seq       int
	buf       []byte // the buffer data lives in, recycled after parsing
	data      []byte
	firstLine int
	err       error
}

type chunkOut[R any] struct {
	seq int
	res R
	err error
}

// workerCount returns n, or GOMAXPROCS when n ≤ 0.
func workerCount(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// runChunks reads r in blocks of whole lines (one goroutine, which also
// decompresses when r does), parses the blocks with parse on workers
// goroutines, and hands the results to merge in file order, on the calling
// goroutine. It returns the first error in file order: a parse error, a
// merge error, or the read error, wrapped by readErr; or ctx's error.
// Memory stays bounded: at most 2·workers+2 blocks are in flight.
func runChunks[R any](ctx context.Context, r io.Reader, workers, chunkSize int,
	parse func(data []byte, firstLine int) (R, error),
	merge func(R) error,
	readErr func(error) error) error {
	if chunkSize <= 0 {
		chunkSize = defaultChunkSize
	}
	workers = workerCount(workers)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	inflight := make(chan struct{}, 2*workers+2)
	free := make(chan []byte, 2*workers+2)
	jobs := make(chan chunkJob, workers)
	outs := make(chan chunkOut[R], workers)

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(jobs)
		readChunks(ctx, r, chunkSize, inflight, free, jobs)
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for job := range jobs {
				o := chunkOut[R]{seq: job.seq}
				if job.err != nil {
					o.err = readErr(job.err)
				} else {
					o.res, o.err = parse(job.data, job.firstLine)
				}
				if job.buf != nil {
					select {
					case free <- job.buf:
					default:
					}
				}
				select {
				case outs <- o:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(outs)
	}()

	pending := make(map[int]chunkOut[R])
	next := 0
	var firstErr error
	for o := range outs {
		if firstErr != nil {
			continue
		}
		pending[o.seq] = o
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-inflight
			if p.err == nil {
				p.err = merge(p.res)
			}
			if p.err != nil {
				firstErr = p.err
				cancel()
				break
			}
		}
	}
	<-readerDone // r must not be read after we return
	if firstErr != nil {
		return firstErr
	}
	return parent.Err()
}

// readChunks is the reading goroutine of runChunks.
func readChunks(ctx context.Context, r io.Reader, chunkSize int, inflight chan struct{}, free chan []byte, jobs chan<- chunkJob) {
	line := 1
	var carry []byte
	send := func(j chunkJob) bool {
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for seq := 0; ; seq++ {
		select {
		case inflight <- struct{}{}:
		case <-ctx.Done():
			return
		}
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, chunkSize)
		}
		if cap(buf) < len(carry)+chunkSize/2 {
			buf = make([]byte, len(carry)+chunkSize)
		}
		buf = buf[:cap(buf)]
		n := copy(buf, carry)
		eof := false
		var err error
		cut := 0
		for {
			for n < len(buf) && !eof && err == nil {
				var m int
				m, err = r.Read(buf[n:])
				n += m
				if err == io.EOF {
					eof, err = true, nil
				}
			}
			if err != nil {
				send(chunkJob{seq: seq, err: err})
				return
			}
			if eof {
				cut = n
				break
			}
			cut = bytes.LastIndexByte(buf[:n], '\n') + 1
			if cut > 0 {
				break
			}
			// A line longer than the buffer: grow it and read on.
			bigger := make([]byte, 2*len(buf))
			copy(bigger, buf[:n])
			buf = bigger
		}
		carry = append(carry[:0], buf[cut:n]...)
		if cut == 0 {
			<-inflight
			return
		}
		data := buf[:cut]
		j := chunkJob{seq: seq, buf: buf, data: data, firstLine: line}
		line += bytes.Count(data, []byte{'\n'})
		if !send(j) {
			return
		}
		if eof {
			return
		}
	}
}

// eachLine calls fn for each line of data (without its '\n' or "\r\n")
// with its number, stopping at the first error.
func eachLine(data []byte, firstLine int, fn func(line []byte, num int) error) error {
	num := firstLine
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' { // CRLF line ends
			line = line[:n-1]
		}
		if err := fn(line, num); err != nil {
			return err
		}
		num++
	}
	return nil
}

var errTooLarge = errors.New("table too large: more than 2^31-1 entries or words")
