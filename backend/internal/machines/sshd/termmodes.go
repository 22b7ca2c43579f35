package sshd

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// termFlag is where an RFC 4254 terminal mode (section 8) lives in termios.
type termFlag struct {
	field int // 0 c_iflag, 1 c_lflag, 2 c_oflag
	bit   uint32
}

// Terminal mode opcodes (RFC 4254 section 8) for the flags clients set; Terraform's
// provisioners send ECHO 0, and OpenSSH sends the client terminal's own settings.
var termFlags = map[byte]termFlag{
	30: {0, unix.IGNPAR}, 31: {0, unix.PARMRK}, 32: {0, unix.INPCK}, 33: {0, unix.ISTRIP},
	34: {0, unix.INLCR}, 35: {0, unix.IGNCR}, 36: {0, unix.ICRNL}, 38: {0, unix.IXON},
	39: {0, unix.IXANY}, 40: {0, unix.IXOFF}, 41: {0, unix.IMAXBEL}, 42: {0, unix.IUTF8},
	50: {1, unix.ISIG}, 51: {1, unix.ICANON}, 53: {1, unix.ECHO}, 54: {1, unix.ECHOE},
	55: {1, unix.ECHOK}, 56: {1, unix.ECHONL}, 57: {1, unix.NOFLSH}, 58: {1, unix.TOSTOP},
	59: {1, unix.IEXTEN}, 60: {1, unix.ECHOCTL}, 61: {1, unix.ECHOKE}, 62: {1, unix.PENDIN},
	70: {2, unix.OPOST}, 72: {2, unix.ONLCR}, 73: {2, unix.OCRNL}, 74: {2, unix.ONOCR},
	75: {2, unix.ONLRET},
}

// Control character opcodes (RFC 4254 section 8) and their termios indexes.
var termChars = map[byte]int{
	1: unix.VINTR, 2: unix.VQUIT, 3: unix.VERASE, 4: unix.VKILL, 5: unix.VEOF, 6: unix.VEOL,
	7: unix.VEOL2, 8: unix.VSTART, 9: unix.VSTOP, 10: unix.VSUSP, 12: unix.VREPRINT,
	13: unix.VWERASE, 14: unix.VLNEXT,
}

// applyModes sets the encoded terminal modes of a "pty-req" on tty; opcodes it does not
// know (speeds among them) are skipped, as the RFC allows.
func applyModes(tty *os.File, modes string) error {
	fd := int(tty.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("read terminal modes: %w", err)
	}
	b := []byte(modes)
	for len(b) >= 5 {
		op, arg := b[0], binary.BigEndian.Uint32(b[1:5])
		if op == 0 || op >= 160 { // TTY_OP_END, or opcodes whose arguments are undefined
			break
		}
		b = b[5:]
		if f, ok := termFlags[op]; ok {
			setFlag(t, f, arg != 0)
		} else if i, ok := termChars[op]; ok {
			t.Cc[i] = byte(arg)
		}
	}
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return fmt.Errorf("set terminal modes: %w", err)
	}
	return nil
}

func setFlag(t *unix.Termios, f termFlag, on bool) {
	p := [...]*uint32{&t.Iflag, &t.Lflag, &t.Oflag}[f.field]
	if on {
		*p |= f.bit
	} else {
		*p &^= f.bit
	}
}
