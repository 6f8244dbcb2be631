#pragma once
// A deliberately broken module tree for engine_layers_*_test: core includes model, which is above it.
#include <string>

#include "engine/model/thing.h"
