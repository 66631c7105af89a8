// The xmalloc family inside plugstack: blocks plugins can xfree().
#pragma once

#include <cstddef>

namespace plugstack::api {

// An xmalloc block of count * size bytes (zeroed if clear), or nullptr.
void* xcalloc(size_t count, size_t size, bool clear);
// An xmalloc copy of text; nullptr for nullptr.
char* xstrdup(const char* text);

}  // namespace plugstack::api
