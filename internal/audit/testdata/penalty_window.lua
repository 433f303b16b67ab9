-- A fixed window that blocks an identity for a penalty once it overflows:
-- the request past the limit starts the penalty, and every request until
-- it ends is denied, windows that open meanwhile included. Its caller
-- passes its clock in milliseconds.
--
-- KEYS[1]  the identity's window (hash: start, count, blocked)
-- ARGV[1]  now: the caller's clock in milliseconds
-- ARGV[2]  limit: requests per window
-- ARGV[3]  window: in milliseconds
-- ARGV[4]  penalty: in milliseconds
-- Reply    1 when admitted, 0 when not
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local penalty = tonumber(ARGV[4])

local h = redis.call('HMGET', key, 'start', 'count', 'blocked')
if now < (tonumber(h[3]) or 0) then
  return 0
end
local start, count = tonumber(h[1]), tonumber(h[2]) or 0
if not start or now - start >= window then
  start, count = now, 0
end
if count >= limit then
  redis.call('HSET', key, 'blocked', now + penalty)
  redis.call('PEXPIRE', key, window + penalty)
  return 0
end
redis.call('HSET', key, 'start', start, 'count', count + 1)
redis.call('PEXPIRE', key, window + penalty)
return 1
