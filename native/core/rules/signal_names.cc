#include "rules/signal_names.h"

#include <strings.h>

#include <cctype>
#include <csignal>
#include <cstdlib>

#include "common/comma_list.h"

namespace plugstack {

namespace {

bool onlySpaceFrom(const std::string& text, size_t at) {
  for (; at < text.size(); at++)
    if (!std::isspace(static_cast<unsigned char>(text[at]))) return false;
  return true;
}

// The release's table names signals as the C library numbers them here.
int numberOfName(const std::string& name) {
  static const struct {
    const char* name;
    int number;
  } kNumbers[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT}, {"KILL", SIGKILL},
                  {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"CHLD", SIGCHLD}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
                  {"PIPE", SIGPIPE}, {"URG", SIGURG},   {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
                  {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"XCPU", SIGXCPU}};
  for (const auto& n : kNumbers)
    if (name == n.name) return n.number;
  return 0;
}

}  // namespace

int slurmSignalNumber(const std::string& text, const SlurmVersion& version) {
  // strtol first: a number, with nothing but whitespace after it.
  const char* start = text.c_str();
  char* end = nullptr;
  long number = std::strtol(start, &end, 10);
  if (end != start) return onlySpaceFrom(text, static_cast<size_t>(end - start)) ? static_cast<int>(number) : 0;
  size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) at++;
  if (strncasecmp(text.c_str() + at, "SIG", 3) == 0) at += 3;
  for (const std::string& name : commaItems(releases::client(version).signalNames))
    if (strncasecmp(text.c_str() + at, name.c_str(), name.size()) == 0 && onlySpaceFrom(text, at + name.size()))
      return numberOfName(name);
  return 0;
}

std::string slurmSignalName(int signal, const SlurmVersion& version) {
  for (const std::string& name : commaItems(releases::client(version).signalNames))
    if (numberOfName(name) == signal) return name;
  return std::to_string(signal);
}

}  // namespace plugstack
