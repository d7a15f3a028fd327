// The interactive single-file HTML viewer (web/ embedded), with the profile's data inline.
#pragma once
#include "flamefold/options.h"
#include "flamefold/output.h"
#include "flamefold/profile.h"

namespace flamefold {

void write_html(const Profile& profile, OutputFile& out, const WriteOptions& options);

}  // namespace flamefold
