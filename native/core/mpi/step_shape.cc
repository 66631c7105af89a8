#include "mpi/step_shape.h"

#include <cstdlib>
#include <cstring>

namespace plugstack {

char* StructHolder::text(const std::string& s) {
  char* p = make<char>(s.size() + 1);
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

}  // namespace plugstack
