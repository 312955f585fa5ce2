#include "CMallocArenas.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

int catalogd_limit_malloc_arenas(int count) {
#if defined(M_ARENA_MAX)
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}
