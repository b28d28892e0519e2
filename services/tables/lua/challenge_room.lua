-- Make room for a new challenge, checked and counted in one atomic step (every key shares the challenges' hash tag,
-- keys.py). Refused when the challenged player refuses it (all challenges, or this game's), while the challenger
-- waits after the challenged player's last decline, or at any limit of open challenges: from the challenger to the
-- challenged player, from the challenger, for the challenged player. Otherwise it is counted in all three (each a
-- sorted set of challenge id -> expiry time; expired ones are dropped first).
-- KEYS: 1 the challenger's open challenges, 2 the challenged player's, 3 those from one to the other,
--       4 the pair's cool-down (hash: strikes; until: for every game, until:<game>: for one), 5 the challenged
--       player's preferences (hash).
-- ARGV: 1 challenge id, 2 now (unix seconds), 3 its expiry (unix seconds), 4 the game, 5 the challenger's limit,
--       6 the challenged player's limit, 7 the pair's limit, 8 seconds the counts outlive their newest challenge.
-- Returns {'ok'}, {'refused', 'all' | 'game'}, {'cooling', seconds left, 'all' | 'game'} or
-- {'full', 'pair' | 'sent' | 'received'}.
local now = tonumber(ARGV[2])
local refused = redis.call('HMGET', KEYS[5], 'refuse_all', 'refuse:' .. ARGV[4])
if refused[1] then return {'refused', 'all'} end
if refused[2] then return {'refused', 'game'} end
local cooling = redis.call('HMGET', KEYS[4], 'until', 'until:' .. ARGV[4])
local all, game = tonumber(cooling[1] or '0'), tonumber(cooling[2] or '0')
if all > now and all >= game then return {'cooling', tostring(all - now), 'all'} end
if game > now then return {'cooling', tostring(game - now), 'game'} end
local counts = {{KEYS[3], ARGV[7], 'pair'}, {KEYS[1], ARGV[5], 'sent'}, {KEYS[2], ARGV[6], 'received'}}
for _, count in ipairs(counts) do
  redis.call('ZREMRANGEBYSCORE', count[1], '-inf', ARGV[2])
  if redis.call('ZCARD', count[1]) >= tonumber(count[2]) then return {'full', count[3]} end
end
for _, count in ipairs(counts) do
  redis.call('ZADD', count[1], ARGV[3], ARGV[1])
  redis.call('EXPIRE', count[1], ARGV[8])
end
return {'ok'}
