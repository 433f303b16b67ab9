-- A counter per window that opens at the first hit, and a block once the
-- limit is passed. ARGV: a name, the window in ms, the limit, how long a
-- block lasts in ms. The caller throttles when the third element is 1.
local hitKey = KEYS[1]
local blockKey = KEYS[2]
local name = ARGV[1]
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local blockFor = tonumber(ARGV[4])
local hits = redis.call('INCR', hitKey)
local left = redis.call('PTTL', hitKey)
if left <= 0 then
  redis.call('PEXPIRE', hitKey, window)
  left = window
end
local blocked = redis.call('GET', blockKey)
if not blocked and hits > limit then
  redis.call('SET', blockKey, 1, 'PX', blockFor)
  blocked = '1'
end
return { hits, left, blocked and 1 or 0 }
