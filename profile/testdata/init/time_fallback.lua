-- A fixed window per aligned period. The caller may send its clock in
-- seconds; without it the script takes the server's.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3]) or tonumber(redis.call('TIME')[1])

local key = KEYS[1] .. ':' .. math.floor(now / window)
local n = redis.call('INCR', key)
if n == 1 then
  redis.call('EXPIRE', key, window)
end
return {n <= limit and 1 or 0, math.max(limit - n, 0)}
