#pragma once
// The public header of the broken tree's server module.
#include "app/server/route.h"
