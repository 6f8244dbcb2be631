// The broken tree's GUI module: one public header of the server, one internal one.
#include "app/server/http_server.h"
#include "app/server/route.h"
