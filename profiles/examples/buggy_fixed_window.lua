-- The textbook fixed window with a mistake people make: it reads the count,
-- compares it with the limit, and only then counts the request. Comparing
-- the count *before* this request with `>` admits counts 0 to limit: one
-- request too many in every window. rlbench's boundary shape puts a full
-- window's worth on each side of a window boundary, and the audit reports
-- the extra admission as overshoot.
--
-- KEYS[1]  the identity's counter (string)
-- ARGV[1]  limit: requests admitted per window
-- ARGV[2]  window in seconds
-- Reply    {allowed 1|0, remaining, retry_after_ms}
local limit = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current > limit then -- the bug: the count does not include this request yet
  return {0, 0, redis.call('PTTL', KEYS[1]) + 1}
end
current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return {1, math.max(limit - current, 0), 0}
