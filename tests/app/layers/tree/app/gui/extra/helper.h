#pragma once
// In a folder of app/ that the manifest does not name.
