// Chrome DevTools / V8 CPU profiles:
//  * a .cpuprofile (DevTools' Save profile, node --cpu-prof): {nodes[], startTime, endTime,
//    samples[], timeDeltas[]} with times in microseconds; nodes link by "children" ids or by
//    "parent" ids. The old format (node 10 and before: a nested "head" tree, startTime/endTime
//    in seconds, absolute "timestamps") too.
//  * a DevTools performance recording (Chrome trace JSON, an array or {traceEvents}): its
//    Profile / ProfileChunk events (ph "P", one id per profiled thread, nodes and samples spread
//    over the chunks) and the older CpuProfile event give the sampled JS stacks of each thread,
//    under process / thread frames named from the trace's metadata. A recording without them is
//    read as a Chrome trace (the Kineto reader).
// Weights as the file has them: "cpu" (ns; a sample lasts until the next one, the last until
// endTime) and "samples" (counts). "(root)" is left out; "(program)", "(idle)" and "(garbage
// collector)" stay, as DevTools shows them. Frames: the function name ("(anonymous)" when
// empty), the script URL and the 1-based line.
#pragma once
#include "flamefold/input.h"
#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

Profile read_cpuprofile(Input& input, const ReadOptions& options);

}  // namespace flamefold
