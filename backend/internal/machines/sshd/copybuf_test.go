package sshd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

// payload is n bytes of a pattern of its own for seed, so that two copies that shared a
// buffer would mix their bytes and be told apart.
func payload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// choppy reads its data in pieces of random sizes, up to the whole buffer: a channel's or a
// pipe's Reads are not the size asked for either.
type choppy struct {
	data []byte
	r    *rand.Rand
}

func (c *choppy) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.r.IntN(copyBufSize+copyBufSize/2))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestCopyStreamsInParallelKeepTheirOwnBytes: copies running at once, each through a buffer
// of the pool and each handing it back many times over, deliver exactly their own bytes (run
// with -race: a buffer shared by two copies at once is a data race).
func TestCopyStreamsInParallelKeepTheirOwnBytes(t *testing.T) {
	const copiers, rounds, size = 4, 4, 2*copyBufSize + 1234
	var wg sync.WaitGroup
	errs := make(chan error, copiers)
	for c := range copiers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				want := payload(uint64(c*rounds+round), size)
				var got bytes.Buffer
				n, err := copyStream(&got, &choppy{data: want, r: rand.New(rand.NewPCG(uint64(c), uint64(round)))})
				if err != nil || n != int64(size) || !bytes.Equal(got.Bytes(), want) {
					errs <- fmt.Errorf("copier %d, round %d: copied %d bytes (err %v), equal %v; want %d, equal", c, round, n, err, bytes.Equal(got.Bytes(), want), size)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCopyStreamReusesItsBuffer: copies one after another take the buffer the previous one
// gave back rather than each allocating its own (the race detector drops pooled items on
// purpose, so this is measured without it).
func TestCopyStreamReusesItsBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	const copies = 50
	data := payload(1, copyBufSize)
	_, _ = copyStream(io.Discard, bytes.NewReader(data)) // the pool's first buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range copies {
		if _, err := copyStream(io.Discard, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	// Without the pool this is copies buffers of copyBufSize; a garbage collection in between
	// may empty the pool once or twice, which costs a buffer each time.
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated >= 10*copyBufSize {
		t.Fatalf("%d copies allocated %d bytes: the buffer is not reused (%d bytes each)", copies, allocated, copyBufSize)
	}
}

// TestParallelTransfersThroughTheServer: sessions piping through `cat` and scp uploads and
// downloads, all at once on one connection, each get back exactly their own bytes, while their
// copiers share the pool's buffers (run with -race).
func TestParallelTransfersThroughTheServer(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.client(t)
	dir := t.TempDir()
	const size = 2*copyBufSize + 777
	var wg sync.WaitGroup
	errs := make(chan error, 3*3)
	for i := range 3 {
		wg.Add(3)
		go func() { // stdin to cat to stdout
			defer wg.Done()
			want := payload(uint64(100+i), size)
			s, err := c.NewSession()
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			s.Stdin = bytes.NewReader(want)
			got, err := s.Output("cat")
			if err != nil || !bytes.Equal(got, want) {
				errs <- fmt.Errorf("cat %d: %d bytes back (err %v), want the %d sent", i, len(got), err, size)
			}
		}()
		go func() { // scp upload
			defer wg.Done()
			want := payload(uint64(200+i), size)
			name := fmt.Sprintf("up-%d", i)
			err := scpUpload(c, dir, name, want)
			if err == nil {
				var got []byte
				got, err = os.ReadFile(filepath.Join(dir, name))
				if err == nil && !bytes.Equal(got, want) {
					err = fmt.Errorf("the file holds %d bytes, not the %d sent", len(got), size)
				}
			}
			if err != nil {
				errs <- fmt.Errorf("scp upload %d: %w", i, err)
			}
		}()
		go func() { // scp download
			defer wg.Done()
			want := payload(uint64(300+i), size)
			path := filepath.Join(dir, fmt.Sprintf("down-%d", i))
			if err := os.WriteFile(path, want, 0o644); err != nil {
				errs <- err
				return
			}
			got, err := scpDownload(c, path, size)
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("received %d bytes, not the file's %d", len(got), size)
			}
			if err != nil {
				errs <- fmt.Errorf("scp download %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// scpUpload sends data as dir/name with the legacy protocol (`scp -t DIR`), as OpenSSH's
// `scp -O` does: the sink's first answer, then the file.
func scpUpload(c *ssh.Client, dir, name string, data []byte) error {
	s, err := c.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	stdin, err := s.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.Start("scp -t " + dir); err != nil {
		return err
	}
	r := bufio.NewReader(stdout)
	if err := scpStatus(r); err != nil {
		return err
	}
	if err := scpFile(stdin, r, name, string(data)); err != nil {
		return err
	}
	_ = stdin.Close()
	return s.Wait()
}

// scpDownload receives path (`scp -f PATH`), which must be size bytes long.
func scpDownload(c *ssh.Client, path string, size int) ([]byte, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	stdin, err := s.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := s.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.Start("scp -f " + path); err != nil {
		return nil, err
	}
	r := bufio.NewReader(stdout)
	_, _ = stdin.Write([]byte{0}) // ready
	record, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if want := fmt.Sprintf("C0644 %d %s\n", size, filepath.Base(path)); record != want {
		return nil, fmt.Errorf("record %q, want %q", record, want)
	}
	_, _ = stdin.Write([]byte{0})
	got := make([]byte, size)
	if _, err := io.ReadFull(r, got); err != nil {
		return nil, err
	}
	if err := scpStatus(r); err != nil { // the source's end of file
		return nil, err
	}
	_, _ = stdin.Write([]byte{0})
	_ = stdin.Close()
	return got, s.Wait()
}
