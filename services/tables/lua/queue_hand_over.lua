-- Hand a claimed match over to its table (ARGV[3]), or hand it back to its queue now (ARGV[3] ''), in one step:
-- only while the claim holds (its lease may have run out, but nothing handed it back yet) and each of its tickets is
-- still there. Otherwise its tickets are handed back (queue_handovers.lua) and the caller removes its table: nobody
-- holds a seat there. Handed over, each ticket is matched: its table and seat, and the tickets of its match (whoever
-- reads a matched ticket whose table has not started seats them all: matchmaking.py). No seat token is kept: each
-- read of a matched ticket by its holder issues one (seating.py), so none lies in Redis in clear.
-- KEYS: 1 queue list, 2 claims, 3 claimed tickets.
-- ARGV: 1 claim id, 2 ticket key prefix, 3 table id or '', 4 seconds a matched ticket is kept, then for each ticket
--       of the claim: its id and its seat.
-- Returns 'ok' (handed over; also to a call made again after it was), 'back' (handed back) or 'refused'.
local id, prefix, table_id = ARGV[1], ARGV[2], ARGV[3]
if not redis.call('ZSCORE', claims, id) then
  if table_id ~= '' and ARGV[5] and redis.call('HGET', prefix .. ARGV[5], 'table_id') == table_id then
    return 'ok'
  end
  return 'refused'
end
if table_id == '' then
  hand_back(id, prefix)
  return 'back'
end
local tickets = {}
for i = 5, #ARGV, 2 do
  if redis.call('HGET', prefix .. ARGV[i], 'claim') ~= id then
    hand_back(id, prefix)
    return 'refused'
  end
  table.insert(tickets, ARGV[i])
end
local match = table.concat(tickets, ',')
for i = 5, #ARGV, 2 do
  local key = prefix .. ARGV[i]
  redis.call('HDEL', key, 'claim')
  redis.call('HSET', key, 'matched', 1, 'table_id', table_id, 'seat', ARGV[i + 1], 'match', match)
  redis.call('EXPIRE', key, ARGV[4])
end
redis.call('ZREM', claims, id)
redis.call('HDEL', claimed, id)
return 'ok'
