-- A token bucket on the server's clock, whose idle buckets live for a
-- period of their own.
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])

local t = redis.call('TIME')
local now = t[1] + t[2] / 1000000
local b = redis.call('HMGET', KEYS[1], 'level', 'ts')
local level = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
level = math.min(capacity, level + math.max(0, now - ts) * rate)
if level < 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'level', tostring(level - 1), 'ts', string.format('%.6f', now))
redis.call('EXPIRE', KEYS[1], period)
return 1
