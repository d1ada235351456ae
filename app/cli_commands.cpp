#include "app/cli_commands.h"

#include <algorithm>

namespace headmap::cli {

namespace {

// Function-local so that registrations from other translation units' static initializers find
// it constructed whatever the initialization order.
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace

bool registerCommand(Command command) {
  auto& all = registry();
  all.push_back(std::move(command));
  std::sort(all.begin(), all.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return true;
}

const std::vector<Command>& commands() { return registry(); }

}  // namespace headmap::cli
