-- GET /v0/entity?id=k<n> for n uniform in [0, keys): the keys a one-thread put.lua run wrote.
--   wrk2 -t1 -c1 -d30s -R10000 -L -s bench/lua/get.lua http://127.0.0.1:8080 -- 100 1000000
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

function init(args)
  local _, key_count = common.args(args)
  keys = key_count
  math.randomseed(os.time() + (thread_id or 0))
end

function request()
  return wrk.format("GET", "/v0/entity?id=k" .. math.random(0, keys - 1))
end
