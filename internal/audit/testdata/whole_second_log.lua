-- A moving window kept in a list, its caller's clock in whole seconds
-- (PHP's time()), written for that clock: a stamp s may have been taken as
-- late as the last microsecond of second s, so an admission is at least a
-- window old only once the stamps say the window and one second more. It
-- denies for up to a window and a second (a conservative limiter: never
-- more than limit in any window on the true clock, and less than a sliding
-- log would admit).
--
-- KEYS[1]  the identity's log (list of stamps, whole seconds, newest first)
-- ARGV[1]  now: the caller's clock in whole seconds
-- ARGV[2]  limit: requests per window
-- ARGV[3]  window: in whole seconds
-- Reply    1 when admitted, 0 when not
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])

local oldest = redis.call('LINDEX', key, limit - 1)
if oldest and tonumber(oldest) > now - window - 1 then
  return 0
end
redis.call('LPUSH', key, now)
redis.call('LTRIM', key, 0, limit - 1)
redis.call('EXPIRE', key, window + 1)
return 1
