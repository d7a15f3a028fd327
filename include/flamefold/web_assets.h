// The viewer's files from web/, compiled into the binary (see cmake/embed_assets.cmake).
#pragma once
#include <string_view>

namespace flamefold {
// The content of web/<name>, or an empty view when there is no such asset.
std::string_view web_asset(std::string_view name);
}  // namespace flamefold
