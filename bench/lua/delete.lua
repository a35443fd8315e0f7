-- DELETE /v0/entity?id=k<n> with n counting up (tombstones for the keys put.lua wrote).
--   wrk2 -t1 -c1 -d30s -R10000 -L -s bench/lua/delete.lua http://127.0.0.1:8080
package.path = debug.getinfo(1, "S").source:match("@?(.*/)") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

function init(args)
  counter = (thread_id or 0) * 100000000
end

function request()
  local path = "/v0/entity?id=k" .. counter
  counter = counter + 1
  return wrk.format("DELETE", path)
end
