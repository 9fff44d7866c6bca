// weft's distributed layer (issues #23, #24): localities, actions, remote futures,
// components and their global ids, distributed promises, collectives, partitioned_vector
// and its segmented algorithms (issue #25). The same program
// runs as one locality, or as one locality per MPI rank under mpirun; see the README's
// "Running on several localities" and docs/distributed.md.
#pragma once

#include <weft/distributed/action.hpp>
#include <weft/distributed/async.hpp>
#include <weft/distributed/collectives.hpp>
#include <weft/distributed/component.hpp>
#include <weft/distributed/id_type.hpp>
#include <weft/distributed/lcos.hpp>
#include <weft/distributed/locality.hpp>
#include <weft/distributed/parcel.hpp>
#include <weft/distributed/partitioned_vector.hpp>
#include <weft/distributed/segmented_algorithms.hpp>
#include <weft/distributed/serialization.hpp>
