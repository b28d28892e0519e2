-- The one write path of a game: an atomic, versioned compare-and-set.
-- KEYS: 1 live hash (version, seq, state, finished), 2 action log list, 3 event stream, 4 done-actions hash
-- ARGV: 1 expected version, 2 new state, 3 logged action, 4 client action id ('' for none),
--       5 pub/sub channel, 6 commit message to publish, 7 finished flag, 8.. events (in seq order)
-- Returns {'ok', 'version:first_seq:last_seq'}, {'dup', <that of the earlier submit>} or {'conflict', version}.
local live, log, stream, done = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local cid = ARGV[4]
if cid ~= '' then
  local prior = redis.call('HGET', done, cid)
  if prior then return {'dup', prior} end
end
local cur = redis.call('HMGET', live, 'version', 'seq')
if cur[1] ~= ARGV[1] then return {'conflict', cur[1] or ''} end
local version = tonumber(cur[1]) + 1
local seq = tonumber(cur[2])
local first = seq + 1
for i = 8, #ARGV do
  seq = seq + 1
  redis.call('XADD', stream, '0-' .. seq, 'e', ARGV[i])
end
redis.call('HSET', live, 'version', version, 'seq', seq, 'state', ARGV[2], 'finished', ARGV[7])
redis.call('RPUSH', log, ARGV[3])
local result = version .. ':' .. first .. ':' .. seq
if cid ~= '' then redis.call('HSET', done, cid, result) end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return {'ok', result}
