local key = KEYS[1]
local max_tokens = tonumber(ARGV[1])   -- the most tokens the bucket holds
local interval = tonumber(ARGV[2])     -- between refills
local refill = tonumber(ARGV[3])       -- tokens added every interval
local now = tonumber(ARGV[4])          -- the caller's clock
local incrementBy = tonumber(ARGV[5])  -- tokens this request takes

local state = redis.call('HMGET', key, 'at', 'tokens')
local at, tokens = tonumber(state[1]), tonumber(state[2])
if not at then
  at, tokens = now, max_tokens
end
local steps = math.floor((now - at) / interval)
if steps > 0 then
  tokens = math.min(max_tokens, tokens + steps * refill)
  at = at + steps * interval
end
if tokens < incrementBy then
  return {-1, at + interval}
end
tokens = tokens - incrementBy
redis.call('HSET', key, 'at', at, 'tokens', tokens)
redis.call('PEXPIRE', key, math.ceil((max_tokens - tokens) / refill) * interval + interval)
return {tokens, at + interval}
