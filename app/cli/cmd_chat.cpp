// Placeholder until the chat command lands (being written on another branch).
#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace folio::cli {
int run_chat(int, char**, int) { throw Error("the chat command is not built yet"); }
}  // namespace folio::cli
