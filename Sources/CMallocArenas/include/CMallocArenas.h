#ifndef CMALLOC_ARENAS_H
#define CMALLOC_ARENAS_H

/// Caps how many arenas glibc's allocator keeps (mallopt M_ARENA_MAX); returns 1 when the cap was set, 0 where
/// the C library has no such setting.
int catalogd_limit_malloc_arenas(int count);

#endif
