package policy

import (
	"fmt"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Offsets in the kernel's struct seccomp_data.
const (
	dataNr   = 0
	dataArch = 4
)

// Instructions assembles the policy for goarch. go-seccomp-bpf's Policy.Assemble assembles for
// the architecture it runs on only; this is the same assembly (the same Program, groups and
// prologue) for any architecture it has a syscall table for, so that one host generates every
// architecture's program (TestInstructionsAreTheLibrarys holds the two equal on the host's).
func Instructions(goarch string) ([]bpf.Instruction, error) {
	info, err := arch.GetInfo(goarch)
	if err != nil {
		return nil, fmt.Errorf("seccomp policy: %w", err)
	}
	p, err := Policy(goarch)
	if err != nil {
		return nil, err
	}
	prog := seccomp.NewProgram()
	for _, g := range p.Syscalls {
		if err := assembleGroup(&prog, info, g); err != nil {
			return nil, fmt.Errorf("seccomp policy for %s: %w", goarch, err)
		}
	}
	prog.Ret(p.DefaultAction)
	body, err := prog.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp policy for %s: %w", goarch, err)
	}
	insts := prologue(info, body)
	if len(insts) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("seccomp policy for %s: %d instructions, over the kernel's %d", goarch, len(insts), unix.BPF_MAXINSNS)
	}
	return insts, nil
}

// prologue puts before body what go-seccomp-bpf's Policy.Assemble puts: a call of another
// architecture jumps to body's last instruction (the default action); on x86_64 an x32 call
// answers ENOSYS.
func prologue(info *arch.Info, body []bpf.Instruction) []bpf.Instruction {
	var x32 []bpf.Instruction
	if info.ID == arch.X86_64.ID {
		x32 = []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: uint32(arch.X32.SeccompMask), SkipFalse: 1},
			bpf.RetConstant{Val: uint32(errnoENOSYS)},
		}
	}
	out := []bpf.Instruction{bpf.LoadAbsolute{Off: dataArch, Size: 4}}
	if skip := len(x32) + len(body); skip <= 255 {
		out = append(out, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: uint32(info.ID), SkipTrue: uint8(skip)})
	} else {
		out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1}, bpf.Jump{Skip: uint32(skip)})
	}
	out = append(out, bpf.LoadAbsolute{Off: dataNr, Size: 4})
	out = append(out, x32...)
	return append(out, body...)
}

// assembleGroup is go-seccomp-bpf's SyscallGroup.Assemble with info's syscall table.
func assembleGroup(p *seccomp.Program, info *arch.Info, g seccomp.SyscallGroup) error {
	calls, err := resolve(info, g)
	if err != nil || len(calls) == 0 {
		return err
	}
	action, next := p.NewLabel(), p.NewLabel()
	for i, c := range calls {
		c.Assemble(p, i < len(calls)-1, action, next)
	}
	p.SetLabel(action)
	p.Ret(g.Action)
	p.SetLabel(next)
	return nil
}

// resolve numbers g's syscalls in info's table, in order, a name's conditions joined (any of
// them allows).
func resolve(info *arch.Info, g seccomp.SyscallGroup) ([]seccomp.SyscallWithConditions, error) {
	var calls []seccomp.SyscallWithConditions
	index := map[uint32]int{}
	number := func(name string) (uint32, error) {
		nr, ok := info.SyscallNames[name]
		if !ok {
			return 0, fmt.Errorf("no syscall %s on %s", name, info.Name)
		}
		return uint32(nr | info.SeccompMask), nil
	}
	for _, name := range g.Names {
		nr, err := number(name)
		if err != nil {
			return nil, err
		}
		if _, dup := index[nr]; dup {
			return nil, fmt.Errorf("syscall %s listed twice", name)
		}
		index[nr] = len(calls)
		calls = append(calls, seccomp.SyscallWithConditions{Num: nr})
	}
	for _, nc := range g.NamesWithCondtions {
		nr, err := number(nc.Name)
		if err != nil {
			return nil, err
		}
		i, seen := index[nr]
		switch {
		case !seen:
			index[nr] = len(calls)
			calls = append(calls, seccomp.SyscallWithConditions{Num: nr, Conditions: []seccomp.ArgumentConditions{nc.Conditions}})
		case len(calls[i].Conditions) == 0:
			return nil, fmt.Errorf("syscall %s both allowed and conditional", nc.Name)
		default:
			calls[i].Conditions = append(calls[i].Conditions, nc.Conditions)
		}
	}
	return calls, nil
}
