-- The same moving window, its caller's clock in whole seconds, compared as
-- if the stamps were exact: an admission stamped s counts as a window old
-- at s + window, though it may have been taken in the last milliseconds of
-- second s. A burst at the end of one second and another at the start of
-- the next are both admitted: twice the limit within a few milliseconds,
-- a second apart on the script's clock.
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
if oldest and tonumber(oldest) > now - window then
  return 0
end
redis.call('LPUSH', key, now)
redis.call('LTRIM', key, 0, limit - 1)
redis.call('EXPIRE', key, window + 1)
return 1
