// Placeholder until the generate command lands (being written on another branch).
#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace folio::cli {
int run_generate(int, char**, int) { throw Error("the generate command is not built yet"); }
}  // namespace folio::cli
