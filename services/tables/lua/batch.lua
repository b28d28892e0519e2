-- Several commands as one atomic step on one node (what MULTI/EXEC does on a single Redis, and what redis-py's
-- cluster client cannot do reliably): every key they touch shares one hash slot (keys.py), declared in KEYS.
-- ARGV: for each command, its argument count n, then its n arguments (the command name first).
-- Returns each command's reply, in order.
local out, i = {}, 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  out[#out + 1] = redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return out
