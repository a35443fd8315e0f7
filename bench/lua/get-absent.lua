-- GET of keys that were never written (absent: answered 404), a Bloom-filter workload.
--   wrk2 -t1 -c1 -d30s -R10000 -L -s bench/lua/get-absent.lua http://127.0.0.1:8080
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

function init(args)
  math.randomseed(os.time() + (thread_id or 0))
end

function request()
  return wrk.format("GET", "/v0/entity?id=absent" .. math.random(0, 2147483647))
end
