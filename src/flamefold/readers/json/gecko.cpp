#include "flamefold/readers/json/gecko.h"
#include "flamefold/errors.h"
namespace flamefold {
Profile read_gecko(Input& input, const ReadOptions&) { throw InputError(input.path(), "", "todo"); }
}
