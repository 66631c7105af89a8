// plugstack-host's entry point. All of the host lives in libslurmhost.so,
// next to the SPANK API it serves: this executable exists so that the API
// is in the process's global symbol scope (the library is linked with
// --no-as-needed), exactly as libslurmfull is for slurmstepd.
extern "C" int plugstack_host_main(int argc, char** argv);

int main(int argc, char** argv) { return plugstack_host_main(argc, argv); }
