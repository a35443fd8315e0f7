-- Shared by the Shale wrk/wrk2 scripts: key numbering and value generation.
--
-- Keys are k<n> like the seed reports. With several wrk threads, thread i (0-based) numbers its
-- keys from i * 100000000, so threads never write the same key.
-- Script arguments (after --): value size in bytes (default 100), key count for reads (default
-- 1000000).

local M = {}

M.thread_count = 0

-- wrk calls setup() once per thread, in the main Lua state, before the threads start.
function M.setup(thread)
  thread:set("thread_id", M.thread_count)
  M.thread_count = M.thread_count + 1
end

function M.args(args)
  local value_size = tonumber(args[1] or "100")
  local keys = tonumber(args[2] or "1000000")
  return value_size, keys
end

return M
