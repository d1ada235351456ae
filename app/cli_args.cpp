#include "app/cli_args.h"

#include <cerrno>
#include <cstdlib>

namespace headmap::cli {

ArgSpec::ArgSpec(std::string command, std::string summary)
    : m_command(std::move(command)), m_summary(std::move(summary)) {}

ArgSpec& ArgSpec::positional(const std::string& name, const std::string& help) {
  m_positionals.push_back({name, "", help});
  return *this;
}

ArgSpec& ArgSpec::option(const std::string& name, const std::string& valueName,
                         const std::string& help) {
  m_options.push_back({name, valueName, help});
  return *this;
}

ArgSpec& ArgSpec::flag(const std::string& name, const std::string& help) {
  m_options.push_back({name, "", help});
  return *this;
}

ArgSpec& ArgSpec::note(const std::string& text) {
  m_notes.push_back(text);
  return *this;
}

const ArgSpec::Item* ArgSpec::findOption(const std::string& name) const {
  for (const Item& item : m_options) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

std::string ArgSpec::help() const {
  std::string usage = "usage: headmap-cli " + m_command;
  for (const Item& p : m_positionals) usage += " " + p.name;
  if (!m_options.empty()) usage += " [options]";
  std::string text = usage + "\n\n" + m_summary + "\n";
  auto row = [](const std::string& left, const std::string& help) {
    std::string line = "  " + left;
    line += line.size() < 26 ? std::string(26 - line.size(), ' ') : "\n" + std::string(26, ' ');
    // Continuation lines of a help text line up under its first line.
    std::string indented;
    for (char c : help) {
      indented += c;
      if (c == '\n') indented += std::string(26, ' ');
    }
    return line + indented + "\n";
  };
  if (!m_positionals.empty()) {
    text += "\narguments:\n";
    for (const Item& p : m_positionals) text += row(p.name, p.help);
  }
  text += "\noptions:\n";
  for (const Item& o : m_options) {
    text += row(o.name + (o.valueName.empty() ? "" : " " + o.valueName), o.help);
  }
  text += row("-h, --help", "show this help and exit");
  for (const std::string& n : m_notes) text += "\n" + n + "\n";
  return text;
}

Args ArgSpec::parse(const std::vector<std::string>& argv) const {
  Args args;
  for (const std::string& a : argv) {
    if (a == "--help" || a == "-h") {
      args.helpRequested = true;
      return args;
    }
  }
  bool onlyPositionals = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (onlyPositionals || a.size() < 2 || a[0] != '-' || a == "-") {
      args.m_positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositionals = true;
      continue;
    }
    std::string name = a;
    std::string value;
    bool inlineValue = false;
    size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inlineValue = true;
    }
    const Item* item = findOption(name);
    if (!item) {
      throw UsageError("unknown option '" + name + "' for " + m_command);
    }
    if (item->valueName.empty()) {
      if (inlineValue) throw UsageError(name + " takes no value");
    } else if (!inlineValue) {
      if (i + 1 >= argv.size()) {
        throw UsageError(name + " needs a value (" + item->valueName + ")");
      }
      value = argv[++i];
    }
    args.m_values[name] = value;  // a repeated option: the last one wins
  }
  if (args.m_positionals.size() < m_positionals.size()) {
    throw UsageError("missing " + m_positionals[args.m_positionals.size()].name);
  }
  if (args.m_positionals.size() > m_positionals.size()) {
    throw UsageError("unexpected argument '" + args.m_positionals[m_positionals.size()] + "'");
  }
  return args;
}

std::string Args::get(const std::string& option, const std::string& fallback) const {
  auto it = m_values.find(option);
  return it == m_values.end() ? fallback : it->second;
}

int parseInt(const std::string& text, int min, int max, const std::string& what) {
  const std::string range =
      " (expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ")";
  if (text.empty()) throw UsageError(what + " is empty" + range);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || end == text.c_str() || text.find_first_of(" \t\n") != std::string::npos) {
    throw UsageError(what + " '" + text + "' is not an integer" + range);
  }
  if (errno == ERANGE || v < min || v > max) {
    throw UsageError(what + " " + text + " is out of range" + range);
  }
  return static_cast<int>(v);
}

int Args::getInt(const std::string& option, int fallback, int min, int max) const {
  if (!has(option)) return fallback;
  return parseInt(get(option), min, max, option);
}

std::vector<int> Args::getIntList(const std::string& option, int min, int max,
                                  const std::string& what) const {
  std::vector<int> values;
  const std::string text = get(option);
  if (text.empty()) return values;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    values.push_back(parseInt(item, min, max, what.empty() ? option + " entry" : what));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

}  // namespace headmap::cli
