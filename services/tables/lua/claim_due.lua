-- A dispatcher claims the follow-ups that are due: each is leased (its due time moved a lease ahead), so another
-- dispatcher skips it, and it comes due again if its worker dies before removing it.
-- KEYS: 1 the outbox (sorted set).  ARGV: 1 lease (ms), 2 most items to claim.
-- Returns the claimed items.
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, item in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), item)
end
return due
