package probe

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestCheckServerTellsARefusalFromTheLimiter: a server that is there and
// gave a run no decision refused it when what it said is its own refusal
// (a replica's READONLY, an ACL's NOPERM, a script's command the ACL
// refuses); a script's own error, or a run with decisions, is the
// limiter's to be judged on.
func TestCheckServerTellsARefusalFromTheLimiter(t *testing.T) {
	rdb := redistest.Client(t)
	target := Target{Env: &redisenv.Env{Client: rdb, Mode: redisenv.External, Addr: "the-server"}, Timeout: 2 * time.Second}
	ctx := context.Background()
	for _, tc := range []struct {
		why        string
		errs, sent int64
		top        result.ErrorCount
		refused    bool
	}{
		{"a replica", 40, 40, result.ErrorCount{Kind: "READONLY", Message: "READONLY You can't write against a read only replica. script: 4f2c, on @user_script:12."}, true},
		{"a key pattern", 40, 40, result.ErrorCount{Kind: "NOPERM", Message: "NOPERM this user has no permissions to access one of the keys used as arguments"}, true},
		{"a command the script calls", 40, 40, result.ErrorCount{Kind: "ERR", Message: "ERR The user executing the script can't run this command or subcommand script: 4f2c"}, true},
		{"the limiter's own bug", 40, 40, result.ErrorCount{Kind: "ERR", Message: "ERR user_script:3: attempt to compare nil with number"}, false},
		{"some decisions", 39, 40, result.ErrorCount{Kind: "NOPERM", Message: "NOPERM this user has no permissions to access one of the keys used as arguments"}, false},
	} {
		err := CheckServer(ctx, target, "fixed_window/steady", tc.errs, tc.sent, []result.ErrorCount{tc.top})
		var refused *RefusedError
		if got := errors.As(err, &refused); got != tc.refused {
			t.Errorf("%s: %v, want refused %v", tc.why, err, tc.refused)
		} else if got && !strings.Contains(err.Error(), tc.top.Message) {
			t.Errorf("%s: %v does not quote Redis", tc.why, err)
		}
	}
}
