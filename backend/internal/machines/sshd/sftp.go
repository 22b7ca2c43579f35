package sshd

import (
	"errors"
	"fmt"
	"io"

	"github.com/pkg/sftp"
)

// serveSFTP serves the "sftp" subsystem (modern OpenSSH scp, sftp, Ansible) on the channel,
// in Go, with paths relative to the home directory.
func (ss *session) serveSFTP(_ io.Reader, _, stderr io.Writer) int {
	server, err := sftp.NewServer(keepOpen{ss.ch}, sftp.WithServerWorkingDirectory(ss.workDir()))
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "sftp: %v\n", err)
		return 1
	}
	defer server.Close()
	if err := server.Serve(); err != nil && !errors.Is(err, io.EOF) {
		_, _ = fmt.Fprintf(stderr, "sftp: %v\n", err)
		return 1
	}
	return 0
}

// keepOpen hands the channel to the sftp server without letting it close it: the session
// closes the channel itself, after the exit status (OpenSSH's scp fails without one).
type keepOpen struct{ io.ReadWriter }

func (keepOpen) Close() error { return nil }
