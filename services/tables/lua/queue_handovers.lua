-- Matchmaking's handovers, shared by the queue scripts (store/base.py puts this before each of them).
-- A match taken out of a queue is claimed: each of its tickets names the claim, and the claim (in a sorted set by
-- deadline, and a hash: claim -> "<joiner>|<ticket>,<ticket>,...") is handed over to its table by
-- queue_hand_over.lua before its deadline, or handed back by any queue script after it: its tickets wait in their
-- queue again, but for the joiner's, the ticket whose JoinQueue call made the match (that call failed: its player
-- never learned the ticket, and joins again). The keys are the queue's (KEYS[1..3] of every queue script).
local queue, claims, claimed = KEYS[1], KEYS[2], KEYS[3]
local KEPT = 3600  -- seconds the claims' keys outlive the last claim (a queue nobody uses any more)

local function now_ms()
  local clock = redis.call('TIME')
  return tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
end

-- The joiner and the tickets of a claim (nil if there is no such claim).
local function claim_of(id)
  local entry = redis.call('HGET', claimed, id)
  if not entry then return nil end
  local joiner, list = string.match(entry, '^(.-)|(.*)$')
  local tickets = {}
  for ticket in string.gmatch(list, '[^,]+') do table.insert(tickets, ticket) end
  return joiner, tickets
end

local function claim(id, tickets, joiner, prefix, lease_ms)
  for _, ticket in ipairs(tickets) do redis.call('HSET', prefix .. ticket, 'claim', id) end
  redis.call('ZADD', claims, now_ms() + lease_ms, id)
  redis.call('HSET', claimed, id, joiner .. '|' .. table.concat(tickets, ','))
  redis.call('EXPIRE', claims, KEPT)
  redis.call('EXPIRE', claimed, KEPT)
end

local function hand_back(id, prefix)
  local joiner, tickets = claim_of(id)
  for i = #(tickets or {}), 1, -1 do  -- back to the front of the queue, in their order: they waited longest
    local key = prefix .. tickets[i]
    if redis.call('HGET', key, 'claim') == id then
      if tickets[i] == joiner then
        redis.call('DEL', key, key .. ':ready')
      else
        redis.call('HDEL', key, 'claim')
        redis.call('LPUSH', queue, tickets[i])
      end
    end
  end
  redis.call('ZREM', claims, id)
  redis.call('HDEL', claimed, id)
end

local function hand_back_overdue(prefix)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', claims, '-inf', now_ms())) do hand_back(id, prefix) end
end

