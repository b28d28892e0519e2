-- The one write path of a game: an atomic, versioned compare-and-set, and the single authority on every submit.
-- The caller may have guessed the live state from its cache; this script confirms or refuses the guess. The work
-- that must follow the commit (bot moves, timers, validation) is recorded in the same step (see followups.py).
-- KEYS: 1 live hash (version, seq, state, started, finished), 2 action log list, 3 event stream,
--       4 done-actions hash (seat:caller kind:client action id -> result, the kind 'c' for a client with a
--         token, 's' for the server's own bots and timers: no client can send the server's ids),
--       5 tokens hash (sha256(token) -> seat), 6 this table's armed follow-ups (set), 7 the outbox (sorted set),
--       8 the outbox wake list, 9 the live-tables index, 10 and 11 the games-under-way listings (all, this game)
-- ARGV: 1 expected version, 2 seat, 3 token digest ('' when the caller is trusted: bots, timers),
--       4 client action id, 5 pub/sub channel, 6 new state, 7 logged action, 8 commit message to publish,
--       9 finished flag, 10 table id, 11 how to publish: 's' SPUBLISH (sharded pub/sub: the channel shares the
--       table's hash tag, so the message stays on this shard), 'p' PUBLISH, 'ps' both (store/pubsub.py), 12 the table's bank clock "bank seconds,increment
--       seconds" ("0,0": a clock per decision), 13 decisions run out in a row that make a seat away (its clock items
--       then come due at once), 14 follow-up count n, then n pairs (item, delay ms), then the events in order
-- Each clock or timer armed gets its deadline computed here, on Redis's clock: stored in the live hash (a Deadlines
-- message) and appended to the published commit (its field 6), so every view shows when a decision runs out.
-- The published commit also carries how many seat tokens the table has retired (field 9, once any was: the live
-- hash's 'retired', counted by issue_token.lua): a watcher under a retired token learns it there.
-- Returns one of
--   {'ok', 'version:first_seq:last_seq', what was appended to the published commit (deadlines, field 6; field 9)}
--   {'dup', <that of the earlier submit with this seat and client action id>}
--   {'token'}                                         the token holds no seat, or another seat
--   {'conflict', version, seq, state, started, finished}  the live state now: the caller retries from it
--   {'missing'}                                       no such table
local live, log, stream, done, tokens = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local armed, outbox, wake, tables = KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local seat, digest, cid = ARGV[2], ARGV[3], ARGV[4]
if digest ~= '' and redis.call('HGET', tokens, digest) ~= seat then return {'token'} end
local field = seat .. (digest == '' and ':s:' or ':c:') .. cid
if cid ~= '' then
  local prior = redis.call('HGET', done, field)
  if prior then return {'dup', prior} end
end
local cur = redis.call('HMGET', live, 'version', 'seq', 'state', 'started', 'finished', 'retired')
if not cur[1] then return {'missing'} end
if cur[1] ~= ARGV[1] or cur[4] ~= '1' or cur[5] == '1' then
  return {'conflict', cur[1], cur[2], cur[3], cur[4] or '0', cur[5] or '0'}
end
local version = tonumber(cur[1]) + 1
local seq = tonumber(cur[2])
local first = seq + 1
local n = tonumber(ARGV[14])
for i = 15 + 2 * n, #ARGV do
  seq = seq + 1
  redis.call('XADD', stream, '0-' .. seq, 'e', ARGV[i])
end
redis.call('HSET', live, 'version', version, 'seq', seq, 'state', ARGV[6], 'finished', ARGV[9])
-- presence: a client's own move brings its seat back; a move its clock made for it counts one more missed decision
if digest ~= '' then
  redis.call('HSET', live, 'absent:' .. seat, 0)
elseif string.sub(cid, 1, 6) == 'clock:' then
  redis.call('HINCRBY', live, 'absent:' .. seat, 1)
end
redis.call('RPUSH', log, ARGV[7])
local result = version .. ':' .. first .. ':' .. seq
if cid ~= '' then redis.call('HSET', done, field, result) end
-- follow-ups: the previous commit's items are void; arm this commit's
local old = redis.call('SMEMBERS', armed)
if #old > 0 then
  redis.call('ZREM', outbox, unpack(old))
  redis.call('DEL', armed)
end
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- a bank clock: the mover's bank loses the time its decision took and gains the increment
local bank, increment = string.match(ARGV[12], '^([%d.]+),([%d.]+)$')
bank, increment = tonumber(bank), tonumber(increment)
if bank > 0 then
  local since = redis.call('HGET', live, 'since:' .. seat)
  local left = tonumber(redis.call('HGET', live, 'bank:' .. seat) or bank)
  if string.sub(cid, 1, 6) == 'clock:' then
    left = 0  -- the bank ran out
  elseif since then
    left = math.max(0, left - (now - tonumber(since)) / 1000)
  end
  redis.call('HSET', live, 'bank:' .. seat, left + increment)
end
local soon = false
local stored, published = '', ''
for i = 0, n - 1 do
  local item, delay = ARGV[15 + 2 * i], tonumber(ARGV[16 + 2 * i])
  local kind, clocked = string.match(item, '^(%a+)|.-|%d+|(%d+)$')
  if kind == 'clock' or kind == 'timer' then
    if kind == 'clock' and bank > 0 then
      delay = math.floor(tonumber(redis.call('HGET', live, 'bank:' .. clocked) or bank) * 1000)
      redis.call('HSET', live, 'since:' .. clocked, now)
    end
    if tonumber(redis.call('HGET', live, 'absent:' .. clocked) or '0') >= tonumber(ARGV[13]) then
      delay = 0  -- an away seat: decided (or passed) for at once
    end
    local deadline = string.char(8, tonumber(clocked)) .. string.char(17) .. struct.pack('<d', (now + delay) / 1000)
    stored = stored .. string.char(10, #deadline) .. deadline
    published = published .. string.char(50, #deadline) .. deadline
  end
  redis.call('ZADD', outbox, now + delay, item)
  redis.call('SADD', armed, item)
  if delay == 0 then soon = true end
end
redis.call('HSET', live, 'deadlines', stored)
if cur[6] then  -- field 9, a varint
  local left, varint = tonumber(cur[6]), ''
  while left >= 128 do
    varint = varint .. string.char(128 + left % 128)
    left = math.floor(left / 128)
  end
  published = published .. string.char(72) .. varint .. string.char(left)
end
if soon then
  redis.call('LPUSH', wake, 1)
  redis.call('LTRIM', wake, 0, 63)
end
if ARGV[9] == '1' then
  redis.call('ZREM', tables, ARGV[10])
  redis.call('ZREM', KEYS[10], ARGV[10])
  redis.call('ZREM', KEYS[11], ARGV[10])
end
if string.find(ARGV[11], 'p', 1, true) then redis.call('PUBLISH', ARGV[5], ARGV[8] .. published) end
if string.find(ARGV[11], 's', 1, true) then redis.call('SPUBLISH', ARGV[5], ARGV[8] .. published) end
return {'ok', result, published}
