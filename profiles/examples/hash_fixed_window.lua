-- A fixed window kept in a hash, as a PHP service calls it:
--
--   $redis->evalSha($sha, [$key, $limit, $windowSeconds, microtime(true)], 1);
--
-- The caller gives the time, in seconds with microseconds. The window opens
-- at the first request and lasts `window` seconds; the hash lives twice as
-- long. A denied request is told how long to wait, in float seconds; an
-- admitted one gets -1 there. Both are told when the window resets.
--
-- KEYS[1]  the identity's window (hash: start, count)
-- ARGV[1]  limit: requests per window
-- ARGV[2]  window, in seconds
-- ARGV[3]  now, in seconds with microseconds (microtime(true))
-- Reply    {allowed 1|0, remaining, retry_after (s, or -1), reset_at (s)}
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])

local start = tonumber(redis.call('HGET', key, 'start'))
if start == nil or now >= start + window then
  start = now
  redis.call('HSET', key, 'start', tostring(start), 'count', 0)
  redis.call('EXPIRE', key, window * 2)
end

local count = redis.call('HINCRBY', key, 'count', 1)
local reset_at = start + window
if count > limit then
  return {0, 0, tostring(reset_at - now), tostring(reset_at)}
end
return {1, limit - count, -1, tostring(reset_at)}
