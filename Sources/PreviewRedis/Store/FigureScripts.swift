/// The Lua of the preview versions' figures (`RedisKeys.figures`, `PreviewFigures`). The functions
/// run inside the scripts that change a stream (`PreviewScripts`, `SweepScripts`), on the
/// stream's slot, and touch only keys those scripts declare: the stream's figures hash `F`
/// (fields `<version>.<name>`) and the live version's two estimates `I` (impressions) and `O`
/// (opens). A version's fields are created when it goes live; counting touches only a version
/// that has them, so a stream published while figures were off counts nothing until its next
/// version. When a version stops being live its estimates are counted into the hash (a closed
/// version's figures no longer change) and the estimates start again for the next one.
enum FigureScripts {
    /// `figures_open(F, I, O, version, now, keep, retention)`: the version went live (its fields
    /// made afresh: a version number reused after the counter expired starts at zero); the hash
    /// keeps the `keep` newest versions and closed ones only `retention` seconds. `keep` 0:
    /// figures off, nothing written.
    /// `figures_close(F, I, O, version, until, retention, ended)`: the version stopped being live
    /// at `until`; with `ended` (no version follows) the hash expires `retention` seconds later.
    /// `figures_final(F, version)`: its figures as `final.<name>` pairs, {} when none.
    /// `figures_count(F, H, version, names, viewer)`: adds 1 to each field of the space-separated
    /// names and the viewer to the estimate `H` ("" for none).
    static let functions = """
        local function figures_names(F, version)
          local prefix, names = version .. '.', {}
          for _, field in ipairs(redis.call('HKEYS', F)) do
            if string.sub(field, 1, #prefix) == prefix then table.insert(names, field) end
          end
          return names
        end
        local function figures_drop(F, version)
          local names = figures_names(F, version)
          if #names > 0 then redis.call('HDEL', F, unpack(names)) end
        end
        local function figures_open(F, I, O, version, now, keep, retention)
          if keep <= 0 then return end
          figures_drop(F, version)
          local versions, closed = {}, {}
          for _, field in ipairs(redis.call('HKEYS', F)) do
            local v = string.match(field, '^(%d+)%.liveFrom$')
            if v then table.insert(versions, tonumber(v)) end
            local c = string.match(field, '^(%d+)%.liveUntil$')
            if c then closed[tonumber(c)] = true end
          end
          table.sort(versions)
          for index, v in ipairs(versions) do
            local until_ = closed[v] and tonumber(redis.call('HGET', F, v .. '.liveUntil')) or now
            if index <= #versions + 1 - keep or until_ + retention < now then figures_drop(F, v) end
          end
          redis.call('HSET', F, version .. '.liveFrom', now)
          redis.call('PERSIST', F)
          redis.call('DEL', I, O)
          redis.call('PFADD', I)
          redis.call('PFADD', O)
        end
        local function figures_close(F, I, O, version, until_, retention, ended)
          if redis.call('HEXISTS', F, version .. '.liveFrom') == 1
            and redis.call('HSETNX', F, version .. '.liveUntil', until_) == 1 then
            redis.call('HSET', F, version .. '.distinctImpressions', redis.call('PFCOUNT', I),
              version .. '.distinctOpens', redis.call('PFCOUNT', O))
          end
          redis.call('DEL', I, O)
          if ended then redis.call('EXPIRE', F, retention) end
        end
        local function figures_final(F, version)
          local names = figures_names(F, version)
          if #names == 0 then return {} end
          local values = redis.call('HMGET', F, unpack(names))
          local out = {}
          for i, name in ipairs(names) do
            table.insert(out, 'final.' .. string.sub(name, #tostring(version) + 2))
            table.insert(out, values[i])
          end
          return out
        end
        local function figures_count(F, H, version, names, viewer)
          if redis.call('HEXISTS', F, version .. '.liveFrom') == 0 then return end
          for name in string.gmatch(names, '%S+') do redis.call('HINCRBY', F, version .. '.' .. name, 1) end
          if H ~= '' then redis.call('PFADD', H, viewer) end
        end

        """

    /// Counts one viewer action against the stream's live version. KEYS: preview, then with
    /// figures on the figures hash and, for a kind with an estimate, that estimate; last, when
    /// ARGV[5] is "1", the watch URL. ARGV: now, names (`figures_count`), "1" when an estimate is
    /// declared, viewer, "1" to read the watch URL, "1" when figures are on. Returns {the live
    /// version, the watch URL or ""}, or {-1, ""} when the stream has no live preview (nothing
    /// counted).
    static let count = RedisScript(
        name: "figureCount",
        source: functions + """
            local live = redis.call('HMGET', KEYS[1], 'version', 'expiresAt')
            if not live[1] or tonumber(live[2] or '0') <= tonumber(ARGV[1]) then return {-1, ''} end
            local watch = ''
            if ARGV[5] == '1' then watch = redis.call('GET', KEYS[#KEYS]) or '' end
            if ARGV[6] == '1' then figures_count(KEYS[2], ARGV[3] == '1' and KEYS[3] or '', live[1], ARGV[2], ARGV[4]) end
            return {tonumber(live[1]), watch}
            """)
}
