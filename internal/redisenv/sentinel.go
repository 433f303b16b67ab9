package redisenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelSpec names a primary that Redis Sentinel manages: the name the
// Sentinels monitor it by, and the Sentinels to ask (any one that answers
// is enough). The client asks them where the primary is, and follows it
// when they fail it over to a replica. Username and Password are the
// Sentinels' own, when they ask for one.
type SentinelSpec struct {
	MasterName string
	Addrs      []string
	Username   string
	Password   string
}

// client is a client of the Sentinel at addr, with the Sentinels' user
// and password, every call bounded by timeout.
func (s *SentinelSpec) client(addr string, timeout time.Duration) *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{Addr: addr, Username: s.Username, Password: s.Password,
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		MaxRetries: -1, Protocol: 2, DisableIdentity: true})
}

// openSentinel connects, through go-redis's failover client, to the
// primary the Sentinels of o.Sentinel name. The Env is a single server's
// (its Client a *redis.Client) whose Addr is where the primary was when
// rlbench connected; a failover moves the client's connections to the new
// primary.
func openSentinel(ctx context.Context, o Options) (*Env, error) {
	s := o.Sentinel
	where := fmt.Sprintf("the primary %q of the Sentinels at %s", s.MasterName, strings.Join(s.Addrs, ","))
	if o.TLS {
		return nil, fmt.Errorf("%s: TLS through Sentinel is not supported", where)
	}
	// The settings every client of rlbench's has, carried over.
	var ro redis.Options
	newClientSettings(o, nil).setOn(&ro)
	fo := &redis.FailoverOptions{
		MasterName:       s.MasterName,
		SentinelAddrs:    s.Addrs,
		SentinelUsername: s.Username,
		SentinelPassword: s.Password,
		Username:         o.Username,
		Password:         o.Password,
		DB:               o.DB,

		Dialer:                nil, // set below: through the Primaries
		DialTimeout:           ro.DialTimeout,
		ReadTimeout:           ro.ReadTimeout,
		WriteTimeout:          ro.WriteTimeout,
		ContextTimeoutEnabled: ro.ContextTimeoutEnabled,
		MaxRetries:            ro.MaxRetries,
		DialerRetries:         ro.DialerRetries,
		Protocol:              ro.Protocol,
		DisableIdentity:       ro.DisableIdentity,
		PoolSize:              ro.PoolSize,
		// As a single server's client: pipelines share the one pool.
		PipelinePoolSize: -1,
	}
	addr, err := sentinelMaster(ctx, o, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	env := &Env{Mode: External, Addr: addr}
	env.Primaries = newPrimaries(addr, s.Addrs, ro.Dialer)
	env.Primaries.spec, env.Primaries.timeout = s, o.timeout()
	env.Primaries.addSentinels(otherSentinels(ctx, o, s)...)
	fo.Dialer = env.Primaries.dialer
	env.Note = fmt.Sprintf("redis at %s is the primary %q of the Sentinels at %s as rlbench connected; a failover moves the run to the new primary", addr, s.MasterName, strings.Join(s.Addrs, ","))
	env.Client = redis.NewFailoverClient(fo)
	if err := env.ready(ctx, o); err != nil {
		return nil, err
	}
	return env, nil
}

// otherSentinels are the Sentinels that the first of s.Addrs to answer
// knows of, which go-redis may go on to ask too.
func otherSentinels(ctx context.Context, o Options, s *SentinelSpec) []string {
	for _, a := range s.Addrs {
		sc := s.client(a, o.timeout())
		known, err := sc.Sentinels(ctx, s.MasterName).Result()
		_ = sc.Close()
		if err != nil {
			continue
		}
		var out []string
		for _, k := range known {
			if ip, port := k["ip"], k["port"]; ip != "" && port != "" {
				out = append(out, net.JoinHostPort(ip, port))
			}
		}
		return out
	}
	return nil
}

// sentinelMaster asks the Sentinels, in turn, where the primary they
// monitor as s.MasterName is: the first answer is the address; a Sentinel
// that does not know the name says so, and the next is asked.
func sentinelMaster(ctx context.Context, o Options, s *SentinelSpec) (string, error) {
	var errs []error
	for _, a := range s.Addrs {
		sc := s.client(a, o.timeout())
		hp, err := sc.GetMasterAddrByName(ctx, s.MasterName).Result()
		_ = sc.Close()
		switch {
		case errors.Is(err, redis.Nil):
			errs = append(errs, fmt.Errorf("sentinel %s monitors no master %q", a, s.MasterName))
		case err != nil:
			errs = append(errs, fmt.Errorf("sentinel %s: %w", a, err))
		case len(hp) != 2:
			errs = append(errs, fmt.Errorf("sentinel %s answered %q, not host and port", a, hp))
		default:
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
	}
	return "", errors.Join(errs...)
}

// AskFailover asks the Sentinels, in turn, to fail the primary over
// (SENTINEL FAILOVER): the first that answers OK is the one that took it
// on, and its address is returned. A Sentinel that refuses (NOGOODSLAVE:
// no replica fit to be promoted; INPROG: a failover is already under
// way) says why in its own words, and no other is asked; one that cannot
// be reached gives way to the next.
func (p *Primaries) AskFailover(ctx context.Context) (string, error) {
	if p == nil || p.spec == nil {
		return "", errors.New("the primary is not one that Sentinels manage")
	}
	var errs []error
	for _, a := range p.spec.Addrs {
		sc := p.spec.client(a, p.timeout)
		err := sc.Failover(ctx, p.spec.MasterName).Err()
		_ = sc.Close()
		var refused redis.Error
		switch {
		case err == nil:
			return a, nil
		case errors.As(err, &refused):
			return a, fmt.Errorf("sentinel %s answered SENTINEL FAILOVER %s with %q", a, p.spec.MasterName, refused.Error())
		default:
			errs = append(errs, fmt.Errorf("sentinel %s: %w", a, err))
		}
	}
	return "", errors.Join(errs...)
}

// SentinelPrimary is where the Sentinels say the primary is now, or why
// none would say.
func (p *Primaries) SentinelPrimary(ctx context.Context) (string, error) {
	if p == nil || p.spec == nil {
		return "", errors.New("the primary is not one that Sentinels manage")
	}
	return sentinelMaster(ctx, Options{Timeout: p.timeout}, p.spec)
}
