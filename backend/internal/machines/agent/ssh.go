package agent

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"syscall"

	"golang.org/x/crypto/ssh"
)

// serveSSH is a minimal SSH server (password auth, exec and shell without PTY) used until
// package sshd is wired in.
func serveSSH(ctx context.Context, ln net.Listener, key ssh.Signer, check func(user, password string) bool) error {
	cfg := &ssh.ServerConfig{
		PasswordCallback: func(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
			if check(c.User(), string(pw)) {
				return nil, nil
			}
			return nil, errors.New("password rejected")
		},
	}
	cfg.AddHostKey(key)
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go serveConn(c, cfg)
	}
}

func serveConn(c net.Conn, cfg *ssh.ServerConfig) {
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		_ = c.Close()
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go serveSession(ch, creqs)
	}
}

func serveSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		switch req.Type {
		case "exec", "shell":
			var cmdline string
			if req.Type == "exec" && len(req.Payload) >= 4 {
				n := binary.BigEndian.Uint32(req.Payload)
				if int(n) <= len(req.Payload)-4 {
					cmdline = string(req.Payload[4 : 4+n])
				}
			}
			_ = req.Reply(true, nil)
			code := runSession(ch, cmdline)
			_ = ch.CloseWrite()
			status := make([]byte, 4)
			binary.BigEndian.PutUint32(status, uint32(code))
			_, _ = ch.SendRequest("exit-status", false, status)
			return
		default:
			_ = req.Reply(req.Type == "env" || req.Type == "pty-req", nil)
		}
	}
}

func runSession(ch ssh.Channel, cmdline string) int {
	args := []string{"/bin/sh"}
	if cmdline != "" {
		args = append(args, "-c", cmdline)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = UserEnv
	cmd.Dir = "/"
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 255
	}
	cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 127
	}
	go func() {
		_, _ = io.Copy(stdin, ch)
		_ = stdin.Close()
	}()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return 255
	}
	return 0
}
