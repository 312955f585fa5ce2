import CMallocArenas
import Foundation

/// How many arenas glibc's allocator keeps: two, unless the environment says otherwise (`MALLOC_ARENA_MAX`, or
/// `arena_max` in `GLIBC_TUNABLES`).
///
/// By default glibc gives threads arenas of their own, up to eight per core, and an arena keeps what was freed into
/// it. An import's download arrives in buffers allocated on one thread and freed on another: with the default, a
/// first NDJSON import peaked a quarter or more above what it does with two arenas, where it peaks as a paged import
/// does. Serving measured no difference (CPU per page and per `/healthz` request under the same load).
enum MallocArenas {
    static let defaultLimit: Int32 = 2

    /// Sets the cap before any thread has asked for an arena; returns whether it was set.
    @discardableResult
    static func limit(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["MALLOC_ARENA_MAX"] == nil, environment["GLIBC_TUNABLES"]?.contains("arena_max") != true else { return false }
        return catalogd_limit_malloc_arenas(defaultLimit) == 1
    }
}
