-- A moving window kept in a list, as a Python service calls it:
--
--   allowed = acquire(keys=[key], args=[time.time(), limit, expiry, amount])
--
-- The list holds one timestamp per unit admitted, newest first, at most
-- limit of them. A request of `amount` units is refused when the entry that
-- would become the limit-th is still inside the window.
--
-- KEYS[1]  the identity's log (list of timestamps, seconds)
-- ARGV[1]  timestamp: now, in seconds with microseconds (time.time())
-- ARGV[2]  limit: units per window
-- ARGV[3]  expiry: the window, in seconds
-- ARGV[4]  amount: the units this request takes
-- Reply    true when admitted, false (nil) when not
local key = KEYS[1]
local timestamp = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local expiry = tonumber(ARGV[3])
local amount = tonumber(ARGV[4])

if amount > limit then
  return false
end
local entry = redis.call('LINDEX', key, limit - amount)
if entry and tonumber(entry) > timestamp - expiry then
  return false
end
for _ = 1, amount do
  redis.call('LPUSH', key, ARGV[1])
end
redis.call('LTRIM', key, 0, limit - 1)
redis.call('EXPIRE', key, expiry)
return true
