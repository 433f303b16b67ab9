local interval = tonumber(ARGV[1]) -- milliseconds
local limit = tonumber(ARGV[2])

local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - interval * 1000)
local used = redis.call('ZCARD', KEYS[1])
if used >= limit then
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  return {0, oldest + interval * 1000 - now}
end
redis.call('ZADD', KEYS[1], now, now .. '-' .. used)
redis.call('EXPIRE', KEYS[1], interval)
return {1, 0}
