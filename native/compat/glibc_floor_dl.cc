/*
 * GLIBC_2.34 moved dlopen & co. from libdl into libc under a new version.
 * The old versions still resolve everywhere: from libc's compatibility
 * symbols on a new glibc, from libdl.so.2 (which binding.gyp links for
 * older systems) on an old one. See glibc_floor.h.
 */
#include <dlfcn.h>

#include "glibc_floor.h"

extern "C" {

extern void* plugstack_dlopen(const char*, int);
extern void* plugstack_dlsym(void*, const char*);
extern int plugstack_dlclose(void*);
extern char* plugstack_dlerror(void);
extern int plugstack_dladdr(const void*, Dl_info*);
PLUGSTACK_PIN_BASE(plugstack_dlopen, dlopen);
PLUGSTACK_PIN_BASE(plugstack_dlsym, dlsym);
PLUGSTACK_PIN_BASE(plugstack_dlclose, dlclose);
PLUGSTACK_PIN_BASE(plugstack_dlerror, dlerror);
PLUGSTACK_PIN_BASE(plugstack_dladdr, dladdr);

void* __wrap_dlopen(const char* file, int mode) { return plugstack_dlopen(file, mode); }
void* __wrap_dlsym(void* handle, const char* name) { return plugstack_dlsym(handle, name); }
int __wrap_dlclose(void* handle) { return plugstack_dlclose(handle); }
char* __wrap_dlerror(void) { return plugstack_dlerror(); }
int __wrap_dladdr(const void* addr, Dl_info* info) { return plugstack_dladdr(addr, info); }

}  // extern "C"
