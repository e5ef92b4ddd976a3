"""Giving memory back to the operating system after large image decodes (glibc only).

glibc's malloc gives each thread that allocates an arena of its own, up to 8 per core, and
keeps what a thread frees in that thread's arena for it to reuse. A server decoding large
photos on many worker threads in turn then holds each one's peak for good. The server
therefore caps the arenas at start-up (`limit_arenas`, before its worker threads exist), and
after a large decode the freed pages of every arena are returned (`release_freed`).
Elsewhere (musl, macOS, Windows) both do nothing.
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger("foodtag.memory")

# mallopt() parameter number of M_ARENA_MAX in glibc's malloc.h.
_M_ARENA_MAX = -8
# Arenas for the whole process: threads share them instead of keeping one each.
MAX_ARENAS = 2


def _glibc():
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


_libc = _glibc()


def limit_arenas(arenas: int = MAX_ARENAS) -> None:
    """Cap the malloc arenas of this process (what MALLOC_ARENA_MAX does when set before
    start). Call it before the process starts its worker threads: arenas made earlier stay."""
    if _libc is not None and not _libc.mallopt(_M_ARENA_MAX, arenas):
        log.warning("could not limit malloc arenas to %d", arenas)


def release_freed() -> None:
    """Return the free pages of every malloc arena to the operating system."""
    if _libc is not None:
        _libc.malloc_trim(0)
