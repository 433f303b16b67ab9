package redisenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// serverDirPattern names a private server's temporary directory.
const serverDirPattern = "rlbench-redis-"

// ownerFile, inside a private server's directory, names the rlbench process
// that owns the server and the server's process group:
// "<pid> <identity> <pgid>", the identity telling the owner from a later
// process that got the same pid, the group 0 until the server has started.
const ownerFile = "owner.pid"

// writeOwner records this process as the owner of dir, and pgid as its
// server's process group. The file appears whole (written aside, then
// renamed), so a reader never takes half of it for a dead owner.
func writeOwner(dir string, pgid int) error {
	pid := os.Getpid()
	tmp := filepath.Join(dir, ownerFile+".tmp")
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %s %d\n", pid, processIdentity(pid), pgid), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ownerFile))
}

// deadOwner reads dir's owner file. dead is true when dir is provably a
// private server directory whose owner is gone: the file is whole, and the
// process it names no longer exists (or a later one has its pid). A
// directory without a readable owner file is not provably rlbench's.
func deadOwner(dir string) (dead bool, pgid int) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, 0
	}
	f := strings.Fields(string(data))
	if len(f) != 3 {
		return false, 0
	}
	pid, err1 := strconv.Atoi(f[0])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || pid <= 0 || pgid < 0 {
		return false, 0
	}
	return processIdentity(pid) != f[1], pgid
}

// RemoveStaleDirs removes the directories under tmp that private servers of
// earlier rlbench processes left when those processes died without cleaning
// up (killed with SIGKILL, or out of memory). Only a directory of this user
// that is provably rlbench's and whose owner no longer exists is touched. A
// server still working in it (started through a wrapper script, it outlives
// its owner) is stopped first: its process group is the one the owner file
// recorded, and a process of that group has the directory as its working
// directory. It returns the directories it removed.
func RemoveStaleDirs(tmp string) []string {
	dirs, _ := filepath.Glob(filepath.Join(tmp, serverDirPattern+"*"))
	var removed []string
	for _, dir := range dirs {
		if !ownedByMe(dir) {
			continue
		}
		dead, pgid := deadOwner(dir)
		if !dead {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil && pgid > 0 && groupWorksIn(pgid, real) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			waitGroupGone(pgid, killWait)
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
