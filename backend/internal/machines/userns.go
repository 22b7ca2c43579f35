package machines

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/reseller/terraform-provider-reseller/backend/internal/machines/machineinit"
)

// machineIDs is the host's uid and gid range of every machine: root inside a machine is host uid
// 1000000, and the machine's ids 0 to 65535 are the host's 1000000 to 1065535. One range serves
// every machine, as LXD's default does: machines cannot reach each other's files (each sees only
// its own disk) nor signal each other's processes (each has its own PID namespace). It lies past
// the ranges useradd hands out in /etc/subuid and /etc/subgid (from 100000, 65536 a user) for
// the first thirteen users; Check refuses a host whose files give any of it to someone else.
var machineIDs = machineinit.IDMap{Base: 1000000, Count: 65536}

// subIDOverlap names the first line of a subordinate id file (subuid(5): name:start:count) that
// gives part of ids to a user other than root; "" when none does or the file is absent.
func subIDOverlap(path string, ids machineinit.IDMap) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(strings.TrimSpace(sc.Text()), ":")
		if len(fields) != 3 || fields[0] == "root" || fields[0] == "0" {
			continue
		}
		start, err1 := strconv.Atoi(fields[1])
		count, err2 := strconv.Atoi(fields[2])
		if err1 == nil && err2 == nil && start < ids.Base+ids.Count && ids.Base < start+count {
			return fmt.Sprintf("%s: %q", path, sc.Text())
		}
	}
	return ""
}
