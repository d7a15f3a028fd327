// Asks for the cache line at p ahead of a read of it, for loops whose reads go from place to
// place (hash tables, frames in another order than they are kept). GCC deletes
// __builtin_prefetch together with the code around it when that code does nothing else: a loop
// that only requests lines, or a helper whose only effect is a request once it is inlined into
// such a loop. Many of flamefold's requests were gone from the binary that way. An asm
// statement marked volatile is never deleted. p is only a hint: it may point anywhere (past an
// array's end, null), as the instruction never faults and p is not dereferenced here.
#pragma once

namespace flamefold {

[[gnu::always_inline]] inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#elif defined(__aarch64__)
  asm volatile("prfm pldl1keep, [%0]" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace flamefold
