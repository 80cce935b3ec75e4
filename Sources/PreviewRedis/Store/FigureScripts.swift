/// The Lua of a preview version's figures (`RedisKeys.figures`, `PreviewFigures`). The functions
/// run inside the scripts that change a stream (`PreviewScripts`, `SweepScripts`), on the
/// stream's slot: each is handed the stream's figures index, a key the script declares, and
/// derives the version's keys from it (same hash tag, so the same slot). A version's keys are
/// created when it goes live (so counting never creates one without a TTL) and given the
/// retention when it stops; counting touches only a version whose hash exists, so a stream
/// published while figures were off counts nothing until its next version.
enum FigureScripts {
    /// `figures_open(index, version, now, keep)`: the version went live (its keys made afresh:
    /// a version number reused after the counter expired starts at zero); the index keeps the
    /// `keep` newest versions, older ones are deleted with their keys. `keep` 0: figures off.
    /// `figures_close(index, version, until, retention)`: the version stopped being live at
    /// `until`; its keys (and, for `close_index`, the index) expire `retention` seconds later.
    /// `figures_final(index, version)`: its figures as `final.<field>` pairs, {} when none.
    /// `figures_count(index, version, fields, distinct, viewer)`: adds 1 to each field of the
    /// space-separated list and the viewer to the named estimate ("" for none).
    static let functions = """
        local figure_estimates = {'impressions', 'opens'}
        local function figures_open(index, version, now, keep)
          if keep <= 0 then return end
          local key = index .. ':' .. version
          redis.call('DEL', key, key .. ':impressions', key .. ':opens')
          redis.call('HSET', key, 'liveFrom', now)
          for _, suffix in ipairs(figure_estimates) do redis.call('PFADD', key .. ':' .. suffix) end
          redis.call('ZADD', index, now, version)
          redis.call('PERSIST', index)
          local extra = redis.call('ZCARD', index) - keep
          if extra > 0 then
            for _, old in ipairs(redis.call('ZRANGE', index, 0, extra - 1)) do
              local gone = index .. ':' .. old
              redis.call('DEL', gone, gone .. ':impressions', gone .. ':opens')
            end
            redis.call('ZREMRANGEBYRANK', index, 0, extra - 1)
          end
        end
        local function figures_close(index, version, until_, retention, close_index)
          local key = index .. ':' .. version
          if redis.call('EXISTS', key) == 1 then
            redis.call('HSETNX', key, 'liveUntil', until_)
            redis.call('EXPIRE', key, retention)
            for _, suffix in ipairs(figure_estimates) do redis.call('EXPIRE', key .. ':' .. suffix, retention) end
          end
          if close_index then redis.call('EXPIRE', index, retention) end
        end
        local function figures_final(index, version)
          local key = index .. ':' .. version
          local fields = redis.call('HGETALL', key)
          if #fields == 0 then return {} end
          local out = {}
          for i = 1, #fields, 2 do
            table.insert(out, 'final.' .. fields[i])
            table.insert(out, fields[i + 1])
          end
          table.insert(out, 'final.distinctImpressions')
          table.insert(out, tostring(redis.call('PFCOUNT', key .. ':impressions')))
          table.insert(out, 'final.distinctOpens')
          table.insert(out, tostring(redis.call('PFCOUNT', key .. ':opens')))
          return out
        end
        local function figures_count(index, version, fields, distinct, viewer)
          local key = index .. ':' .. version
          if redis.call('EXISTS', key) == 0 then return end
          for field in string.gmatch(fields, '%S+') do redis.call('HINCRBY', key, field, 1) end
          if distinct ~= '' then redis.call('PFADD', key .. ':' .. distinct, viewer) end
        end

        """

    /// Counts one viewer action against the stream's live version. KEYS: preview, figures index,
    /// watch URL. ARGV: now, fields, distinct, viewer (`figures_count`). Returns {the live
    /// version, the watch URL or ""}, or {-1, ""} when the stream has no live preview (nothing
    /// counted).
    static let count = RedisScript(
        name: "figureCount",
        source: functions + """
            local live = redis.call('HMGET', KEYS[1], 'version', 'expiresAt')
            if not live[1] or tonumber(live[2] or '0') <= tonumber(ARGV[1]) then return {-1, ''} end
            figures_count(KEYS[2], live[1], ARGV[2], ARGV[3], ARGV[4])
            return {tonumber(live[1]), redis.call('GET', KEYS[3]) or ''}
            """)
}
