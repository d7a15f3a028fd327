// Readable ML stacks (issue 13): C++ names shortened and nn.Module instances merged.
//
//   short names     `void at::native::elementwise_kernel<128, 4, F>(int, F)` -> `at::native::elementwise_kernel<…>`:
//                   return type, parameter list and what follows it dropped, template arguments
//                   collapsed to `<…>` unless there is exactly one (then it is kept, itself
//                   shortened: `cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>`),
//                   `(anonymous namespace)::` dropped; Tensile's `Cijk_…_MT…_MI…_<60 more fields>`
//                   cut after the tile fields. Names that are not C++ (Python frames
//                   `model.py(42): forward`, `aten::mm`, `Memset (Device)`, `<built-in …>`) stay.
//   merge modules   `nn.Module: Qwen2DecoderLayer_7` (PyTorch's profiler numbers every instance of
//                   a module class) -> `nn.Module: Qwen2DecoderLayer`, so a 24-layer model shows
//                   one decoder-layer tower holding all 24 layers instead of 24 thin ones.
//
// web/viewer/59-ml-names.js does the same in the page (the switches there); the two are held
// to one table of names by the tests (tests/data/short_names.tsv).
#pragma once
#include <string>
#include <string_view>

#include "flamefold/options.h"
#include "flamefold/profile.h"

namespace flamefold {

// The short form of a C++ name; the name itself when it is not C++ or nothing shortens.
std::string short_name(std::string_view name);

// "nn.Module: Class_12" -> "nn.Module: Class"; "" when the name is no numbered module instance.
std::string_view module_class(std::string_view name);

// The name a frame gets under the options (the name itself when they change nothing).
std::string readable_name(std::string_view name, const NameOptions& options);

// Renames every frame (group frames excepted) by readable_name and rebuilds the tree, merging
// the nodes that come to have one frame under one parent, with their subtrees, recursively:
// weights are summed, every column's total is unchanged. Per-kernel statistics merge alike
// (counts and totals add, min and max combine). Records what it did in the profile's facts.
// Leaves the profile as it is when no name changes.
void make_names_readable(Profile& profile, const NameOptions& options);

}  // namespace flamefold
