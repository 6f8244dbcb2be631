// Placeholder until the tokenize command lands (being written on another branch).
#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace folio::cli {
int run_tokenize(int, char**, int) { throw Error("the tokenize command is not built yet"); }
}  // namespace folio::cli
