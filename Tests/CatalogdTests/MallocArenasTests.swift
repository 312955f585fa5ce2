import Testing

@testable import catalogd

@Suite("The allocator's arenas")
struct MallocArenasTests {
    #if canImport(Glibc)
        @Test func glibcKeepsTwoArenasUnlessTheEnvironmentSaysOtherwise() {
            #expect(MallocArenas.limit(environment: [:]))
            #expect(!MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "8"]))
            #expect(!MallocArenas.limit(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"]))
            #expect(MallocArenas.limit(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"]))
        }
    #endif
}
