#include "spank/plugin.h"

namespace plugstack {

int Plugin::callbackCount() const {
  int n = 0;
  for (auto* cb : callbacks) n += cb != nullptr;
  return n;
}

std::string Plugin::basename() const {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

char** Plugin::argv() {
  if (args.empty()) return nullptr;
  if (argvStorage_.empty()) {
    for (auto& a : args) argvStorage_.push_back(a.data());
    argvStorage_.push_back(nullptr);
  }
  return argvStorage_.data();
}

}  // namespace plugstack
