#include "mpi/mpi_release.h"

#include <cstring>

namespace plugstack {

const char* const kMpiHooks[9] = {
    "plugin_id",         "mpi_p_client_fini",        "mpi_p_client_prelaunch",
    "mpi_p_conf_get",    "mpi_p_conf_get_printable", "mpi_p_conf_options",
    "mpi_p_conf_set",    "mpi_p_slurmstepd_prefork", "mpi_p_slurmstepd_task",
};

const char* const kMpiOldHooks[4] = {
    "p_mpi_hook_slurmstepd_prefork",
    "p_mpi_hook_slurmstepd_task",
    "p_mpi_hook_client_prelaunch",
    "p_mpi_hook_client_fini",
};

bool mpiServedByPlugstack(const char* type) { return std::strcmp(type, "pmi2") == 0; }

bool mpiNotProvided(const char* type) {
  return std::strcmp(type, "pmix") == 0 || std::strncmp(type, "pmix_", 5) == 0 ||
         std::strcmp(type, "cray_shasta") == 0;
}

}  // namespace plugstack
