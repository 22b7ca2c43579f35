package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/reseller/terraform-provider-reseller/backend/internal/store"
)

// addressCounter is the key, in the simulator's pool table, of the counter change_ip draws
// the sandbox's addresses from: no datacenter has it, and every replica shares it.
const addressCounter = -1

// rangeSize is how many addresses p holds.
func rangeSize(p netip.Prefix) uint64 { return 1 << (32 - p.Bits()) }

// addressAt is the address offset places into p.
func addressAt(p netip.Prefix, offset uint64) netip.Addr {
	b := p.Addr().As4()
	n := binary.BigEndian.Uint32(b[:]) + uint32(offset)
	binary.BigEndian.PutUint32(b[:], n)
	return netip.AddrFrom4(b)
}

// buildAddress is the address of order orderID's machine: in the lower half of p, past the
// network address and the host's side of the bridge (the first two), one per order id. Two
// orders whose ids differ by a multiple of the half's size less two get one address: the
// range must hold more addresses than the machines a host keeps (a /16 holds 32766).
func buildAddress(p netip.Prefix, orderID int64) netip.Addr {
	half := rangeSize(p) / 2
	return addressAt(p, 2+uint64(orderID-1)%(half-2))
}

// changeAddress is the n-th address change_ip hands out (n from 1): in the upper half of p, up
// to its last address but one (the broadcast address), wrapping around.
func changeAddress(p netip.Prefix, n int64) netip.Addr {
	half := rangeSize(p) / 2
	return addressAt(p, half+uint64(n-1)%(half-1))
}

// nextChange draws the next number of change_ip's counter, shared by every replica.
func (d *Datacenter) nextChange(ctx context.Context) (int64, error) {
	var n int64
	err := d.state.UpdateIPPool(ctx, addressCounter, func(p *store.IPPool) {
		p.Issued++
		n = p.Issued
	})
	if err != nil {
		return 0, fmt.Errorf("sandbox: address counter: %w", err)
	}
	return n, nil
}
