-- Half PUT of k<n> (n counting up), half GET of a key uniform in [0, keys).
--   wrk2 -t1 -c1 -d30s -R10000 -L -s bench/lua/mixed.lua http://127.0.0.1:8080 -- 100 1000000
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

function init(args)
  local value_size, key_count = common.args(args)
  value = string.rep("v", value_size)
  keys = key_count
  counter = (thread_id or 0) * 100000000
  math.randomseed(os.time() + (thread_id or 0))
end

function request()
  if math.random() < 0.5 then
    local path = "/v0/entity?id=k" .. counter
    counter = counter + 1
    return wrk.format("PUT", path, nil, value)
  end
  return wrk.format("GET", "/v0/entity?id=k" .. math.random(0, keys - 1))
end
