-- A token bucket as a PHP service calls it:
--
--   $redis->evalSha($sha, [$key, $capacity, $refillPerSecond, microtime(true), $tokens], 1);
--
-- The bucket refills continuously at refill_rate tokens a second, up to
-- capacity; a request takes `requested` tokens when the bucket holds them.
--
-- KEYS[1]  the identity's bucket (hash: tokens, updated_at)
-- ARGV[1]  capacity: the most tokens the bucket holds
-- ARGV[2]  refill_rate: tokens added per second
-- ARGV[3]  now, in seconds with microseconds (microtime(true))
-- ARGV[4]  requested: the tokens this request takes
-- Reply    {allowed 1|0, tokens left, retry_after (s, or -1)}
local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local refill_rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local requested = tonumber(ARGV[4])

local bucket = redis.call('HMGET', key, 'tokens', 'updated_at')
local tokens = tonumber(bucket[1])
local updated_at = tonumber(bucket[2])
if tokens == nil then
  tokens = capacity
  updated_at = now
end

local elapsed = math.max(0, now - updated_at)
tokens = math.min(capacity, tokens + elapsed * refill_rate)

local allowed = 0
local retry_after = -1
if tokens >= requested then
  tokens = tokens - requested
  allowed = 1
else
  retry_after = (requested - tokens) / refill_rate
end

redis.call('HSET', key, 'tokens', tostring(tokens), 'updated_at', ARGV[3])
redis.call('EXPIRE', key, math.ceil(capacity / refill_rate) + 1)
return {allowed, tostring(tokens), tostring(retry_after)}
