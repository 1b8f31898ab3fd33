"""Every engine cache can be emptied at once (what a closed window leaves is then only what
is still in use)."""

import gc

from smlengine.cache import LRUCache, clear_caches


def test_clear_caches_empties_every_cache_and_forgets_dead_ones():
    a, b = LRUCache(3), LRUCache(2)
    for k in range(5):
        a.put(k, [k] * 10)
        b.put(k, k)
    assert len(a) == 3 and len(b) == 2
    dead = LRUCache(1)
    dead.put("x", 1)
    del dead
    gc.collect()
    assert clear_caches() >= 5
    assert len(a) == 0 and len(b) == 0
    a.put("again", 1)
    assert a.get("again") == 1
