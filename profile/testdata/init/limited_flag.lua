-- A moving window kept in a list, timed by its caller in float seconds.
-- KEYS[1]  the caller's list of request times
-- ARGV[1]  limit: requests per period
-- ARGV[2]  period, in seconds
-- ARGV[3]  now, the caller's clock in seconds (a float)
-- Replies 1 when the request is throttled, 0 when it may go.
local key, limit, period, now = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

if limit <= redis.call("LLEN", key) and now - redis.call("LINDEX", key, -1) < period then
  return 1
end

redis.call("LPUSH", key, now)
redis.call("LTRIM", key, 0, limit - 1)
redis.call("EXPIRE", key, math.ceil(period))

return 0
