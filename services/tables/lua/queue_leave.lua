-- Leave a queue for good: the ticket is removed, unless it is matched already. A ticket claimed for a handover is
-- removed too; that handover is then refused and its other tickets handed back (queue_hand_over.lua).
-- KEYS: 1 queue list, 2 claims, 3 claimed tickets.  ARGV: 1 ticket id, 2 ticket key prefix.
-- Returns {'left'}, {'matched', table id} or {'unknown'}.
local key = ARGV[2] .. ARGV[1]
local found = redis.call('HMGET', key, 'matched', 'table_id', 'joined')
if found[1] == '1' then return {'matched', found[2]} end
if not found[3] then return {'unknown'} end
redis.call('LREM', queue, 0, ARGV[1])
redis.call('DEL', key, key .. ':ready')
return {'left'}
