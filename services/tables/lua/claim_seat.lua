-- Claim a seat of a table atomically; the seat that fills the table starts play and arms its first follow-ups.
-- KEYS: 1 seats hash (seat -> occupant), 2 tokens hash (sha256(token) -> seat), 3 live hash,
--       4 this table's armed follow-ups (set), 5 the outbox (sorted set), 6 the outbox wake list,
--       7 the issued hash (seat -> its live token digests, oldest first: issue_token.lua)
-- ARGV: 1 seat count, 2 wanted seat (-1: first open), 3 occupant ('human:<name>'), 4 token digest ('': the seat
--       is taken with no token yet, a matched ticket's: its player's reads of the ticket issue them),
--       5 the table's bank clock "bank seconds,increment seconds" ("0,0": a clock per decision), 6 follow-up count n,
--       then n pairs (item, delay ms): what the first state waits for (deadlines computed as in commit.lua)
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
  for i = 0, tonumber(ARGV[6]) - 1 do
    local item, delay = ARGV[7 + 2 * i], tonumber(ARGV[8 + 2 * i])
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
end
return {'ok', seat, started}
