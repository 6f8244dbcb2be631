#pragma once
// The model folders the app remembers (its settings.ini, [models] recent=...), so that
// `folio-cli models` lists what the Models page lists. Read without Qt: QSettings' INI form of a
// string list is comma-separated, an entry with a comma or outer spaces in double quotes.
#include <string>
#include <vector>

namespace folio::cli {

// $XDG_DATA_HOME/folio, else ~/.local/share/folio: where the app keeps settings.ini by default.
std::string default_app_data_dir();

// The recent model folders listed in `settings_ini` ("dummy:" entries left out); empty when the
// file or the key is missing.
std::vector<std::string> recent_model_folders(const std::string& settings_ini);

// The value of a QSettings INI string list, split into its entries.
std::vector<std::string> parse_qsettings_list(const std::string& value);

}  // namespace folio::cli
