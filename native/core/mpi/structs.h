// The struct builders of the emulated release (step_shape.h).
#pragma once

#include "mpi/mpi_release.h"
#include "mpi/step_shape.h"

namespace plugstack {

inline const MpiStructs& mpiStructsFor(const SlurmVersion& version) {
  return mpiRelease(version).layout2411 ? mpiStructs2411() : mpiStructs2205();
}

}  // namespace plugstack
