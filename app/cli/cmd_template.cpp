// Placeholder until the template command lands (being written on another branch).
#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace folio::cli {
int run_template(int, char**, int) { throw Error("the template command is not built yet"); }
}  // namespace folio::cli
