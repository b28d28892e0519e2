-- Claim a seat of a table atomically; the seat that fills the table starts play and arms its first follow-ups.
-- KEYS: 1 seats hash (seat -> occupant), 2 tokens hash (sha256(token) -> seat), 3 live hash,
--       4 this table's armed follow-ups (set), 5 the outbox (sorted set), 6 the outbox wake list,
--       7 the issued hash (seat -> its live token digests, oldest first: issue_token.lua)
-- ARGV: 1 seat count, 2 wanted seat (-1: first open), 3 occupant ('human:<name>'), 4 token digest ('': the seat
--       is taken with no token yet, a matched ticket's: its player's reads of the ticket issue them),
--       5 the table's bank clock "bank seconds,increment seconds" ("0,0": a clock per decision), 6 how to publish
--       ('p', 's' or 'ps', as commit.lua's ARGV 11), 7 the shard's notices channel (keys.notices: it shares the
--       table's hash tag), 8 the table id, 9 follow-up count n, then n pairs (item, delay ms): what the first state
--       waits for (deadlines computed as in commit.lua)
-- The seat that starts play tells the Events streams of the players seated there, in the same step: a notice
-- "t|<table id>|<player id>,<player id>..." on the notices channel (services/tables/inbox.py).
-- Returns {'ok', seat, started} or {'taken', seat} or {'full', -1}.
local seats, tokens, live = KEYS[1], KEYS[2], KEYS[3]
local n, wanted = tonumber(ARGV[1]), tonumber(ARGV[2])
local seat = -1
if wanted >= 0 then
  if redis.call('HEXISTS', seats, wanted) == 1 then return {'taken', wanted} end
  seat = wanted
else
  for s = 0, n - 1 do
    if redis.call('HEXISTS', seats, s) == 0 then seat = s; break end
  end
  if seat < 0 then return {'full', -1} end
end
redis.call('HSET', seats, seat, ARGV[3])
if ARGV[4] ~= '' then  -- a seat taken now has no token yet: this is its first
  redis.call('HSET', tokens, ARGV[4], seat)
  redis.call('HSET', KEYS[7], seat, ARGV[4])
end
local started = 0
if redis.call('HLEN', seats) == n then
  redis.call('HSET', live, 'started', 1)
  started = 1
  local now = redis.call('TIME')
  now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local bank = tonumber(string.match(ARGV[5], '^([%d.]+),'))
  local stored = ''
  for i = 0, tonumber(ARGV[9]) - 1 do
    local item, delay = ARGV[10 + 2 * i], tonumber(ARGV[11 + 2 * i])
    local kind, clocked = string.match(item, '^(%a+)|.-|%d+|(%d+)$')
    if kind == 'clock' or kind == 'timer' then
      if kind == 'clock' and bank > 0 then
        delay = math.floor(bank * 1000)
        redis.call('HSET', live, 'since:' .. clocked, now)
      end
      local deadline = string.char(8, tonumber(clocked)) .. string.char(17) .. struct.pack('<d', (now + delay) / 1000)
      stored = stored .. string.char(10, #deadline) .. deadline
    end
    redis.call('ZADD', KEYS[5], now + delay, item)
    redis.call('SADD', KEYS[4], item)
  end
  redis.call('HSET', live, 'deadlines', stored)
  redis.call('LPUSH', KEYS[6], 1)
  redis.call('LTRIM', KEYS[6], 0, 63)
  local players = {}
  for _, occupant in ipairs(redis.call('HVALS', seats)) do
    local kind, id = string.match(occupant, '^(%a+):([^:]+):')
    if kind == 'player' or kind == 'botplayer' then players[#players + 1] = id end
  end
  if #players > 0 then
    local notice = 't|' .. ARGV[8] .. '|' .. table.concat(players, ',')
    if string.find(ARGV[6], 'p', 1, true) then redis.call('PUBLISH', ARGV[7], notice) end
    if string.find(ARGV[6], 's', 1, true) then redis.call('SPUBLISH', ARGV[7], notice) end
  end
end
return {'ok', seat, started}
