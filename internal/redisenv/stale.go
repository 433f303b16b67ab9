package redisenv

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// serverDirPattern names a private server's temporary directory.
const serverDirPattern = "rlbench-redis-"

// ownerFile, inside a private server's directory, names the rlbench process
// that owns the server, the server's process group and, once proved, the
// server's own process: "<pid> <identity> <pgid> [<server pid> <server
// identity>]", each identity telling a process from a later one that got
// the same pid, the group 0 until the server has started. The server's
// own process is what finds a server that left the group.
const ownerFile = "owner.pid"

// writeOwner records this process as the owner of dir, pgid as its
// server's process group and o (when not nil) as what the server said of
// itself. The file appears whole (written aside, then renamed), so a
// reader never takes half of it for a dead owner.
func writeOwner(dir string, pgid int, o *owner) error {
	pid := os.Getpid()
	line := fmt.Sprintf("%d %s %d", pid, processIdentity(pid), pgid)
	if o != nil && o.pid > 0 && o.start != "" {
		line += fmt.Sprintf(" %d %s", o.pid, o.start)
	}
	tmp := filepath.Join(dir, ownerFile+".tmp")
	if err := os.WriteFile(tmp, []byte(line+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ownerFile))
}

// deadOwner reads dir's owner file. dead is true when dir is provably a
// private server directory whose owner is gone: the file is whole, and the
// process it names no longer exists (or a later one has its pid). A
// directory without a readable owner file is not provably rlbench's. pgid
// is the server's group, server its own process when it was proved.
func deadOwner(dir string) (dead bool, pgid int, server escapee) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, 0, escapee{}
	}
	f := strings.Fields(string(data))
	if len(f) != 3 && len(f) != 5 {
		return false, 0, escapee{}
	}
	pid, err1 := strconv.Atoi(f[0])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || pid <= 0 || pgid < 0 {
		return false, 0, escapee{}
	}
	if len(f) == 5 {
		if spid, err := strconv.Atoi(f[3]); err == nil && spid > 0 {
			server = escapee{pid: spid, start: f[4]}
		}
	}
	return processIdentity(pid) != f[1], pgid, server
}

// RemoveStaleDirs removes the directories under tmp that private servers of
// earlier rlbench processes left when those processes died without cleaning
// up (killed with SIGKILL, or out of memory). Only a directory of this user
// that is provably rlbench's and whose owner no longer exists is touched. A
// server still working in it (started through a wrapper script, it outlives
// its owner) is stopped first: its process group is the one the owner file
// recorded, or it is the very process (same pid, same start) the owner file
// recorded as the server, and it has the directory as its working
// directory. It returns the directories it removed.
func RemoveStaleDirs(tmp string) []string {
	dirs, _ := filepath.Glob(filepath.Join(tmp, serverDirPattern+"*"))
	var removed []string
	for _, dir := range dirs {
		if !ownedByMe(dir) {
			continue
		}
		dead, pgid, server := deadOwner(dir)
		if !dead {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if pgid > 0 && groupWorksIn(pgid, real) {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				waitGroupGone(pgid, killWait)
			}
			if server.pid > 0 && processIdentity(server.pid) == server.start && slices.Contains(ProcessesIn(real), server.pid) {
				server.signal(syscall.SIGKILL)
				waitGone(&process{}, []escapee{server}, killWait)
			}
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// groupWorksIn reports whether a running process of group pgid has dir as
// its working directory.
func groupWorksIn(pgid int, dir string) bool {
	for _, pid := range ProcessesIn(dir) {
		if processGroup(pid) == pgid {
			return true
		}
	}
	return false
}

// ownedByMe reports whether dir is a directory of this user.
func ownedByMe(dir string) bool {
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
