#pragma once
// model may include core (its line in the manifests says so), but not by a relative path.
#include "../core/base.h"
#include "engine/core/base.h"
