#include "flamefold/readers/json/cpuprofile.h"
#include "flamefold/errors.h"
namespace flamefold {
Profile read_cpuprofile(Input& input, const ReadOptions&) { throw InputError(input.path(), "", "todo"); }
}
