// A bare simdjson On-Demand pass over a Chrome trace: every event object of traceEvents is
// visited and each field's raw token touched (no conversion, no model). The reference speed
// the Kineto reader is compared with in bench/results-kineto.md.
//   kineto_simdjson_pass FILE.json
#include <simdjson.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s trace.json\n", argv[0]);
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  simdjson::padded_string json;
  if (auto err = simdjson::padded_string::load(argv[1]).get(json)) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], simdjson::error_message(err));
    return 2;
  }
  auto t1 = clock::now();
  simdjson::ondemand::parser parser;
  size_t events = 0, fields = 0, bytes = 0;
  try {
    simdjson::ondemand::document doc = parser.iterate(json);
    for (auto field : doc.get_object()) {
      if (field.unescaped_key().value() != "traceEvents") continue;
      for (auto ev : field.value().get_array()) {
        ++events;
        for (auto f : ev.get_object()) {
          ++fields;
          bytes += f.value().raw_json_token().value().size();
        }
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    std::fprintf(stderr, "parse error: %s\n", e.what());
    return 2;
  }
  auto t2 = clock::now();
  double load = std::chrono::duration<double>(t1 - t0).count(), parse = std::chrono::duration<double>(t2 - t1).count();
  double mb = double(json.size()) / 1e6;
  std::printf("%zu events, %zu fields (%zu token bytes)\nload %.3f s, parse %.3f s = %.0f MB/s parse, %.0f MB/s load+parse\n",
              events, fields, bytes, load, parse, mb / parse, mb / (load + parse));
  return 0;
}
