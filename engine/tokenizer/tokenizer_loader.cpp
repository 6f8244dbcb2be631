#include "engine/tokenizer/tokenizer_loader.h"

#include <filesystem>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "engine/tokenizer/tokenizer_json.h"

namespace folio {

std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        // tokenizer.json first when a folder has both, as transformers does.
        const fs::path json = fs::path(path) / "tokenizer.json";
        if (fs::exists(json, ec)) return load_tokenizer_json(json.string());
        const fs::path model = fs::path(path) / "tokenizer.model";
        if (fs::exists(model, ec)) return SentencePieceTokenizer::load(model.string());
        throw Error("no tokenizer.json or tokenizer.model in " + path +
                    " (a Hugging Face tokenizer.json or a sentencepiece tokenizer.model is needed)");
    }
    if (!fs::exists(path, ec)) throw Error("tokenizer path " + path + " does not exist");
    if (fs::path(path).extension() == ".json") return load_tokenizer_json(path);
    return SentencePieceTokenizer::load(path);
}

std::shared_ptr<const Tokenizer> make_byte_tokenizer(int vocab_size) {
    return std::make_shared<const ByteTokenizer>(vocab_size);
}

}  // namespace folio
