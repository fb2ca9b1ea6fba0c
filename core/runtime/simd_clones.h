#pragma once

// One copy of a hot loop for x86-64-v3 (AVX2 + FMA, chosen at load time where the CPU has
// it) and one for any x86-64: put ATTNLAB_HOT on the function. Not under sanitizers (their
// runtime and ifunc resolvers do not mix) nor where GCC 12's ISA-level dispatch is missing.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define ATTNLAB_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ATTNLAB_HOT
#endif
