package sshd

import (
	"io"
	"sync"
)

// Bulk copies between a channel and a pipe or file (a session's stdin and output, scp's file
// data, a forwarded connection) go through copyStream, with a buffer of copyBufSize taken
// from a pool and put back when the copy ends.
//
// Why a large buffer: a channel's Read returns all the data the channel holds, up to the
// buffer's size (golang.org/x/crypto/ssh queues up to its 2 MiB window), and a pipe or a file
// takes a large write in one call; with io.Copy's 32 KiB every packet of an upload is its own
// Read and its own write(2), and a pipe's reader is woken for each. Why a pool: a session has
// three copiers, and allocating their buffers at every session would grow the agent's heap by
// their size each time; the pool lends the same buffers to the sessions that follow, and the
// garbage collector empties it when they stay unused.
const copyBufSize = 256 << 10

var copyBufs = sync.Pool{New: func() any {
	b := make([]byte, copyBufSize)
	return &b
}}

// copyStream copies src to dst until src's EOF or an error, as io.Copy does, through a
// pooled buffer. The buffer is only lent: it goes back to the pool when copyStream returns,
// and nothing of it is kept by dst or src (neither may retain what they are given, as
// io.Writer and io.Reader say).
func copyStream(dst io.Writer, src io.Reader) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	// The wrappers hide ReadFrom and WriteTo (an *os.File has both), which would copy through
	// a 32 KiB buffer of their own instead of this one.
	return io.CopyBuffer(writerOnly{dst}, readerOnly{src}, *bp)
}

type writerOnly struct{ w io.Writer }

func (w writerOnly) Write(p []byte) (int, error) { return w.w.Write(p) }

type readerOnly struct{ r io.Reader }

func (r readerOnly) Read(p []byte) (int, error) { return r.r.Read(p) }
