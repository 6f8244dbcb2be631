#include "engine/tokenizer/tokenizer_loader.h"

#include <filesystem>

#include "engine/core/error.h"
#include "engine/tokenizer/byte_tokenizer.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"

namespace folio {

std::shared_ptr<const Tokenizer> load_tokenizer(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const fs::path model = fs::path(path) / "tokenizer.model";
        if (fs::exists(model, ec)) return SentencePieceTokenizer::load(model.string());
        if (fs::exists(fs::path(path) / "tokenizer.json", ec))
            throw Error(path + " has only tokenizer.json (a byte-level BPE tokenizer, as Llama-3 and Qwen use), which "
                        "Folio does not read yet; a sentencepiece tokenizer.model is needed");
        throw Error("no tokenizer.model in " + path + " (a sentencepiece tokenizer.model is needed)");
    }
    if (!fs::exists(path, ec)) throw Error("tokenizer path " + path + " does not exist");
    return SentencePieceTokenizer::load(path);
}

std::shared_ptr<const Tokenizer> make_byte_tokenizer(int vocab_size) {
    return std::make_shared<const ByteTokenizer>(vocab_size);
}

}  // namespace folio
