package redisenv

import (
	"bufio"
	"context"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// refusalCodes are the error codes with which a server refuses a call for
// a reason of its own, whatever the call: its ACL (NOPERM), its
// authentication (NOAUTH, WRONGPASS), its role (READONLY on a replica,
// MASTERDOWN on a replica cut off from its primary), its state (LOADING a
// dataset, MISCONF when it cannot persist, CLUSTERDOWN, OOM when its
// maxmemory is reached under a policy that does not evict: whatever
// filled it, the limit is the server's configuration, and what a
// limiter's keys cost is measured as memory per identity). A limiter's
// own failures (a script error) are not among them.
var refusalCodes = map[string]bool{
	"NOPERM": true, "NOAUTH": true, "WRONGPASS": true, "READONLY": true,
	"MASTERDOWN": true, "LOADING": true, "MISCONF": true, "CLUSTERDOWN": true,
	"OOM": true,
}

// refusalMessages start the generic ERR replies that are the server's
// refusal: every connection slot taken (maxclients), a command renamed
// away or disabled (rename-command, a managed service's list), a command
// a script calls that the ACL refuses.
// A script's call of a command (or a key) its user's ACL refuses is
// answered "ERR The user executing the script can't ...".
var refusalMessages = []string{"ERR max number of clients reached", "ERR unknown command", "ERR The user executing the script can't"}

// IsRefusal reports whether message, an error Redis answered, is the
// server refusing the call for a reason of its own (see refusalCodes),
// not a failure of the limiter's script.
func IsRefusal(message string) bool {
	if refusalCodes[replyCode(message)] {
		return true
	}
	for _, m := range refusalMessages {
		if strings.HasPrefix(message, m) {
			return true
		}
	}
	return false
}

// greetingWait bounds how long Greeting listens on a fresh connection.
const greetingWait = 300 * time.Millisecond

// Greeting dials a fresh connection as rdb would (its address, dialer and
// TLS) and reads what the server says before it is asked anything: a
// server with every client slot taken writes "ERR max number of clients
// reached" and closes the connection, which a client that writes first
// sees only as a broken pipe or a reset. It returns that error reply, or
// "" when the server said nothing (as a server that accepts a connection
// does) or could not be dialled. A cluster client has no one address:
// "".
func Greeting(ctx context.Context, rdb redis.UniversalClient) string {
	c, ok := rdb.(*redis.Client)
	if !ok {
		return ""
	}
	o := c.Options()
	dial := o.Dialer
	if dial == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, o.DialTimeout+greetingWait)
	defer cancel()
	conn, err := dial(ctx, o.Network, o.Addr)
	if err != nil {
		return ""
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(greetingWait))
	line, err := bufio.NewReaderSize(conn, 512).ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	if msg, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "-"); ok {
		return msg
	}
	return ""
}
