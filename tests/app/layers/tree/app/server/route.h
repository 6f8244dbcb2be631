#pragma once
// Internal to the server module: not on its PUBLIC list.
struct Route {};
