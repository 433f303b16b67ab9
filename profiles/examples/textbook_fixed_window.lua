-- A fixed window as the textbooks write it: count the request, start the
-- window's clock on the first one, compare with the limit. The reply has no
-- server time, so rlbench judges it by the fixed window's bound on client
-- times.
--
-- KEYS[1]  the identity's counter (string)
-- ARGV[1]  limit: requests admitted per window
-- ARGV[2]  window in seconds
-- Reply    {allowed 1|0, remaining, retry_after_ms}
local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
local limit = tonumber(ARGV[1])
if current > limit then
  -- The key lives through its expiry millisecond: retry one after it.
  return {0, 0, redis.call('PTTL', KEYS[1]) + 1}
end
return {1, limit - current, 0}
