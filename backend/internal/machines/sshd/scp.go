package sshd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The legacy scp protocol, served in Go when a session's exec command is `scp -t` (sink: the
// client uploads) or `scp -f` (source: the client downloads). Terraform's provisioners run
// `'scp' '-vt' DIR` and `'scp' '-rvt' DIR`; OpenSSH's `scp -O` runs `scp -t` or `scp -f`
// with -r, -p, -d as asked. The behaviour follows OpenSSH's scp.c: each record is answered
// with one byte, 0 for done, 1 followed by a message line for an error the copy goes on after.

// scpRequest is a parsed remote scp command line.
type scpRequest struct {
	sink      bool // -t: receive files into paths[0]
	source    bool // -f: send paths
	recursive bool // -r: directories too
	targetDir bool // -d: the target must be a directory
	preserve  bool // -p: modes and times as sent
	paths     []string
}

// scpMaxLine bounds a record line: a mode, a size and a file name.
const scpMaxLine = 8192

// errSCPFatal ends a copy: the protocol can not go on (bad record, lost connection).
var errSCPFatal = errors.New("scp: fatal")

// parseSCPCommand recognises an exec command that is a remote scp in sink or source mode;
// anything else (a pipeline, a variable, scp without -t or -f) is left to the shell.
func parseSCPCommand(command string) (scpRequest, bool) {
	words, ok := shellWords(command)
	if !ok || len(words) == 0 || filepath.Base(words[0]) != "scp" {
		return scpRequest{}, false
	}
	var r scpRequest
	i := 1
	for ; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		for _, c := range w[1:] {
			switch c {
			case 't':
				r.sink = true
			case 'f':
				r.source = true
			case 'r':
				r.recursive = true
			case 'd':
				r.targetDir = true
			case 'p':
				r.preserve = true
			}
		}
	}
	r.paths = words[i:]
	return r, r.sink != r.source
}

// runSCP serves one remote scp and returns its exit status: 0, or 1 after any error.
func runSCP(r scpRequest, home string, umask uint32, stdin io.Reader, stdout, stderr io.Writer) int {
	p := &scpPeer{in: bufio.NewReaderSize(stdin, 64<<10), out: stdout, stderr: stderr, r: r, umask: umask}
	paths := make([]string, len(r.paths))
	for i, path := range r.paths {
		paths[i] = resolvePath(home, path)
	}
	var err error
	switch {
	case r.sink && len(paths) != 1:
		p.warn("ambiguous target")
		err = errSCPFatal
	case r.sink:
		err = p.sink(paths[0], r.targetDir)
	case len(paths) == 0:
		p.warn("no source file given")
		err = errSCPFatal
	default:
		err = p.sendAll(paths)
	}
	if err != nil || p.errs > 0 {
		return 1
	}
	return 0
}

// resolvePath makes a path from the command line absolute: "~" and relative paths are taken
// from the home directory, as the remote shell and scp would.
func resolvePath(home, path string) string {
	switch {
	case path == "~":
		return home
	case strings.HasPrefix(path, "~/"):
		return filepath.Join(home, path[2:])
	case filepath.IsAbs(path):
		return path
	}
	return filepath.Join(home, path)
}

// scpPeer is our side of one scp copy.
type scpPeer struct {
	in     *bufio.Reader
	out    io.Writer
	stderr io.Writer
	r      scpRequest
	umask  uint32
	errs   int
}

func (p *scpPeer) ack() { _, _ = p.out.Write([]byte{0}) }

// warn reports an error to the other side; the copy goes on.
func (p *scpPeer) warn(format string, args ...any) {
	p.errs++
	_, _ = fmt.Fprintf(p.out, "\x01scp: "+format+"\n", args...)
}

// fatal reports a protocol error and ends the copy.
func (p *scpPeer) fatal(format string, args ...any) error {
	p.warn("protocol error: "+format, args...)
	return errSCPFatal
}

// readLine reads one record up to its newline (not included); io.EOF at a clean end.
func (p *scpPeer) readLine() (string, error) {
	var b strings.Builder
	for b.Len() <= scpMaxLine {
		c, err := p.in.ReadByte()
		if err != nil {
			if err == io.EOF && b.Len() == 0 {
				return "", io.EOF
			}
			return "", errSCPFatal
		}
		if c == '\n' {
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.fatal("record too long")
}

// response reads the other side's answer to what we sent: nil for 0; for 1 (an error the
// copy goes on after) the message is shown on stderr and an error returned; 2 ends the copy.
func (p *scpPeer) response() error {
	c, err := p.in.ReadByte()
	if err != nil {
		return errSCPFatal
	}
	if c == 0 {
		return nil
	}
	msg, _ := p.readLine()
	_, _ = fmt.Fprintln(p.stderr, msg)
	p.errs++
	if c == 1 {
		return errors.New(msg)
	}
	return errSCPFatal
}

// scpTimes are a T record's modification and access times.
type scpTimes struct{ mtime, atime time.Time }

// sink receives records into target until the sender closes (or, in a directory, sends E).
func (p *scpPeer) sink(target string, mustBeDir bool) error {
	targetIsDir := isDir(target)
	if mustBeDir && !targetIsDir {
		p.warn("%s: Not a directory", target)
		return errSCPFatal
	}
	p.ack()
	var times *scpTimes
	for {
		line, err := p.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if line == "" {
			return p.fatal("empty record")
		}
		switch line[0] {
		case 1, 2: // the sender's own error, passed on to our stderr
			_, _ = fmt.Fprintln(p.stderr, line[1:])
			p.errs++
			if line[0] == 2 {
				return errSCPFatal
			}
			continue
		case 'E':
			p.ack()
			return nil
		case 'T':
			if times, err = parseSCPTimes(line[1:]); err != nil {
				return p.fatal("%v", err)
			}
			p.ack()
			continue
		case 'C', 'D':
		default:
			return p.fatal("expected control record")
		}
		mode, size, name, err := parseSCPRecord(line)
		if err != nil {
			return p.fatal("%v", err)
		}
		path := target
		if targetIsDir {
			path = filepath.Join(target, name)
		}
		if line[0] == 'D' {
			err = p.receiveDir(path, mode, times)
		} else {
			err = p.receiveFile(path, mode, size, times)
		}
		if err != nil {
			return err
		}
		times = nil
	}
}

// receiveDir handles a D record: the directory is made (or reused) and its records received.
func (p *scpPeer) receiveDir(path string, mode uint32, times *scpTimes) error {
	if !p.r.recursive {
		return p.fatal("received directory without -r")
	}
	created := false
	if fi, err := os.Stat(path); err == nil {
		if !fi.IsDir() {
			p.warn("%s: Not a directory", path)
			return errSCPFatal
		}
		if p.r.preserve {
			_ = syscall.Chmod(path, mode)
		}
	} else {
		if err := syscall.Mkdir(path, mode|0o700); err != nil {
			p.warn("%s: %s", path, errText(err))
			return errSCPFatal
		}
		created = true
	}
	if err := p.sink(path, false); err != nil {
		return err
	}
	if times != nil {
		_ = os.Chtimes(path, times.atime, times.mtime)
	}
	if created {
		_ = syscall.Chmod(path, mode)
	}
	return nil
}

// receiveFile handles a C record: size bytes follow our ack, then the sender's status byte.
func (p *scpPeer) receiveFile(path string, mode uint32, size int64, times *scpTimes) error {
	_, statErr := os.Stat(path)
	existed := statErr == nil
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_CLOEXEC, mode|0o200)
	if err != nil {
		p.warn("%s: %s", path, errText(err)) // the sender skips the file
		return nil
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	p.ack()
	w := &stickyWriter{w: f}
	// Through a pooled buffer (copybuf.go): a Read of p.in bigger than its own buffer goes
	// straight to the channel and takes all it holds, and the file gets one write for it.
	if n, err := copyStream(w, io.LimitReader(p.in, size)); err != nil || n < size {
		return errSCPFatal // the sender went away mid-file
	}
	if w.err == nil {
		w.err = f.Truncate(size)
	}
	if p.r.preserve {
		_ = syscall.Fchmod(fd, mode)
	} else if !existed {
		_ = syscall.Fchmod(fd, mode&^p.umask)
	}
	if err := p.response(); errors.Is(err, errSCPFatal) {
		return err
	}
	if w.err == nil && times != nil {
		w.err = os.Chtimes(path, times.atime, times.mtime)
	}
	if w.err != nil {
		p.warn("%s: %s", path, errText(w.err))
		return nil
	}
	p.ack()
	return nil
}

// stickyWriter keeps the first write error and discards the rest, so that the sender's data
// is still read to its end and the stream stays in step.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(b []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
	return len(b), nil
}

// sendAll serves `scp -f`: each path is sent once the receiver has said it is ready.
func (p *scpPeer) sendAll(paths []string) error {
	if err := p.response(); err != nil {
		return errSCPFatal
	}
	for _, path := range paths {
		if err := p.send(path); errors.Is(err, errSCPFatal) {
			return err
		}
	}
	return nil
}

func (p *scpPeer) send(path string) error {
	// A newline would end the record early and let the rest of the name pass for a record of
	// its own (OpenSSH's scp skips such names the same way).
	if strings.Contains(filepath.Base(path), "\n") {
		p.warn("%s: skipping, filename contains a newline", strings.ReplaceAll(path, "\n", "?"))
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		p.warn("%s: %s", path, errText(err))
		return nil
	}
	switch {
	case fi.IsDir() && p.r.recursive:
		return p.sendDir(path, fi)
	case !fi.Mode().IsRegular():
		p.warn("%s: not a regular file", path)
		return nil
	}
	return p.sendFile(path, fi)
}

// sendTimes sends a T record before a file or directory when -p asked for times.
func (p *scpPeer) sendTimes(fi fs.FileInfo) error {
	if !p.r.preserve {
		return nil
	}
	atime := fi.ModTime()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		atime = time.Unix(st.Atim.Unix())
	}
	_, _ = fmt.Fprintf(p.out, "T%d 0 %d 0\n", fi.ModTime().Unix(), atime.Unix())
	return p.response()
}

func (p *scpPeer) sendDir(path string, fi fs.FileInfo) error {
	if err := p.sendTimes(fi); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(p.out, "D%04o 0 %s\n", rawMode(fi), filepath.Base(path))
	if err := p.response(); err != nil {
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		p.warn("%s: %s", path, errText(err))
	}
	for _, e := range entries {
		if err := p.send(filepath.Join(path, e.Name())); errors.Is(err, errSCPFatal) {
			return err
		}
	}
	_, _ = fmt.Fprint(p.out, "E\n")
	return p.response()
}

func (p *scpPeer) sendFile(path string, fi fs.FileInfo) error {
	f, err := os.Open(path)
	if err != nil {
		p.warn("%s: %s", path, errText(err))
		return nil
	}
	defer f.Close()
	if err := p.sendTimes(fi); err != nil {
		return err
	}
	size := fi.Size()
	_, _ = fmt.Fprintf(p.out, "C%04o %d %s\n", rawMode(fi), size, filepath.Base(path))
	if err := p.response(); err != nil {
		return err
	}
	// The size is promised: a file that shrank meanwhile is padded and reported.
	n, readErr := copyStream(p.out, io.LimitReader(f, size))
	if n < size {
		_, _ = io.CopyN(p.out, zeros{}, size-n)
		if readErr == nil {
			readErr = io.ErrUnexpectedEOF
		}
	}
	if readErr != nil {
		p.warn("%s: %s", path, errText(readErr))
	} else {
		p.ack()
	}
	return p.response()
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// parseSCPRecord reads "C0644 123 name" or "D0755 0 name".
func parseSCPRecord(line string) (mode uint32, size int64, name string, err error) {
	fields := strings.SplitN(line[1:], " ", 3)
	if len(fields) != 3 {
		return 0, 0, "", errors.New("record not delimited")
	}
	m, err := strconv.ParseUint(fields[0], 8, 32)
	if err != nil || len(fields[0]) != 4 {
		return 0, 0, "", errors.New("bad mode")
	}
	size, err = strconv.ParseInt(fields[1], 10, 64)
	if err != nil || size < 0 {
		return 0, 0, "", errors.New("size not delimited")
	}
	name = fields[2]
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return 0, 0, "", fmt.Errorf("unexpected filename: %q", name)
	}
	return uint32(m) & 0o7777, size, name, nil
}

// parseSCPTimes reads a T record's "mtime 0 atime 0" (seconds and microseconds).
func parseSCPTimes(s string) (*scpTimes, error) {
	f := strings.Fields(s)
	if len(f) != 4 {
		return nil, errors.New("bad times record")
	}
	var n [4]int64
	for i, v := range f {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 0 {
			return nil, errors.New("bad times record")
		}
		n[i] = x
	}
	return &scpTimes{mtime: time.Unix(n[0], n[1]*1000), atime: time.Unix(n[2], n[3]*1000)}, nil
}

// rawMode is a file's permission bits as scp sends them (with setuid, setgid and sticky).
func rawMode(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Mode & 0o7777
	}
	return uint32(fi.Mode().Perm())
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// errText is the system's message for err without Go's "op path:" prefix, as scp prints it.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

// processUmask reads this process's umask without changing it (umask(2) would, for an
// instant, for every goroutine); 022 where /proc does not say.
func processUmask() uint32 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(m)
				}
			}
		}
	}
	return 0o022
}
