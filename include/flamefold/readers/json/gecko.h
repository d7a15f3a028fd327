// The Firefox Profiler's formats (profiler.firefox.com):
//  * Gecko's own profile (what Firefox and `perf script report gecko` write): tables with a
//    "schema" and "data" rows per thread (samples, stackTable, frameTable), a per-thread
//    stringTable, sub-process profiles under "processes" (also as JSON text in old files), and
//    Firefox DevTools' "Recorded Performance Data" wrapper around it;
//  * the processed format (meta.preprocessedProfileVersion; CPython's Tachyon sampler, Vernier,
//    converters): column arrays per table (stackTable, frameTable, funcTable, samples with
//    stack, time or timeDeltas, weight and weightType), strings in thread.stringArray or
//    profile.shared.stringArray.
// Each thread becomes a thread frame (a process frame above it when there are several
// processes). Weights as the file has them: "samples" (a count, or the weight column when
// weightType is "samples"), "cpu" in ns (each sample lasts until the thread's next sample, the
// last one meta.interval ms; weightType "tracing-ms" gives the time itself), "bytes".
#pragma once
#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

Profile read_gecko(Input& input, const ReadOptions& options);

}  // namespace flamefold
