#include "engine/tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_model_proto.h"

namespace folio {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // '▁'

std::string replace_space_symbol(std::string_view piece) {
    std::string out;
    out.reserve(piece.size());
    for (size_t i = 0; i < piece.size();) {
        if (piece.substr(i, kSpaceSymbol.size()) == kSpaceSymbol) {
            out.push_back(' ');
            i += kSpaceSymbol.size();
        } else {
            out.push_back(piece[i++]);
        }
    }
    return out;
}

int byte_of_piece(const std::string& piece) {  // "<0xAB>" -> 0xAB
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
    return std::stoi(piece.substr(3, 2), nullptr, 16);
}

}  // namespace

struct SentencePieceTokenizer::Impl {
    std::string path;
    std::string serialized;  // the model as loaded, for the no-dummy-prefix variant
    sentencepiece::SentencePieceProcessor sp;
    std::vector<TokenKind> kinds;
    std::vector<std::string> bytes;  // token_bytes() per id
    std::vector<int> special_ids;
    LeadingSpaceRule leading = LeadingSpaceRule::DropFirst;

    // transformers' legacy=false needs encoding without the dummy prefix; built on first use.
    mutable std::once_flag no_prefix_once;
    mutable sentencepiece::SentencePieceProcessor sp_no_prefix;
    mutable bool no_prefix_ok = false;
};

std::shared_ptr<const SentencePieceTokenizer> SentencePieceTokenizer::load(const std::string& model_file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(model_file, ec))
        throw Error("tokenizer file " + model_file + " does not exist (a sentencepiece tokenizer.model is needed)");
    std::ifstream in(model_file, std::ios::binary);
    if (!in) throw Error("cannot read tokenizer file " + model_file);
    std::ostringstream ss;
    ss << in.rdbuf();
    return load_serialized(ss.str(), model_file);
}

std::shared_ptr<const SentencePieceTokenizer> SentencePieceTokenizer::load_serialized(std::string serialized,
                                                                                      const std::string& model_file) {
    auto impl = std::make_unique<Impl>();
    impl->path = model_file;
    impl->serialized = std::move(serialized);
    const std::string corrupt = "tokenizer file " + model_file + " is not a valid sentencepiece model";
    if (impl->serialized.empty()) throw Error(corrupt + " (the file is empty)");

    // Our own parse first: the library aborts the process on some malformed inputs instead of
    // returning an error, and it also gives the facts the public API hides.
    SentencePieceModelFacts facts;
    try {
        facts = read_sentencepiece_facts(impl->serialized);
    } catch (const Error& e) {
        throw Error(corrupt + " (" + e.what() + ")");
    }
    // A denormalizer rewrites the decoded text as a whole (its rules may span pieces, or drop text), so
    // the text streamed token by token would differ from the reply's decode (found by the
    // sentencepiece_model fuzz target). No model of the supported families has one.
    if (facts.has_denormalizer)
        throw Error("tokenizer file " + model_file + " has sentencepiece denormalization rules (denormalizer_spec), "
                    "which rewrite decoded text as a whole; Folio streams replies token by token and does not "
                    "support them");
    const auto status = impl->sp.LoadFromSerializedProto(impl->serialized);
    if (!status.ok()) throw Error(corrupt + " (" + status.ToString() + ")");
    const int n = impl->sp.GetPieceSize();
    if (n <= 0) throw Error(corrupt + " (it has no pieces)");

    // Each piece's text must be unique. The library refuses duplicates among normal pieces but not
    // between a normal piece and a control or unknown one; its decode then prints the other piece's
    // text for the later id, so text and ids no longer agree (found by the sentencepiece_model fuzz
    // target: a second "<s>" decoded as the unknown surface). No trained model has such a pair.
    std::unordered_map<std::string, int> first_id;
    for (int id = 0; id < n; ++id) {
        const auto [it, fresh] = first_id.emplace(impl->sp.IdToPiece(id), id);
        if (!fresh)
            throw Error(corrupt + " (pieces " + std::to_string(it->second) + " and " + std::to_string(id) +
                        " are both '" + it->first + "'; each piece must be unique)");
    }

    // The library loads some models its encoder then fails on with an internal check (found by the
    // sentencepiece_model fuzz target: a control piece "▁" — "all normalized characters are not
    // consumed"). Refuse those here, so that a tokenizer that loads encodes ordinary text: a probe
    // with every printable ASCII character, runs of spaces, a newline, a tab and multi-byte text.
    {
        std::string probe = "Once upon a time, <s> 42 \xC3\xA9 \xE2\x9C\x93  there was\n\ta \xE4\xB8\xAD\xF0\x9F\x98\x80 ";
        for (char c = 0x20; c < 0x7F; ++c) probe.push_back(c);
        std::vector<int> ids;
        if (const auto st = impl->sp.Encode(probe, &ids); !st.ok())
            throw Error(corrupt + " (the sentencepiece library cannot encode text with it: " + st.ToString() + ")");
    }

    if (facts.remove_extra_whitespaces) impl->leading = LeadingSpaceRule::DropWhileEmpty;
    else if (facts.add_dummy_prefix) impl->leading = LeadingSpaceRule::DropFirst;
    else impl->leading = LeadingSpaceRule::Keep;

    // The unknown surface is whatever the library prints for the UNKNOWN piece (trainer_spec.unk_surface).
    // That piece is found by its type: the library's unk_id() is -1 when trainer_spec.unk_piece names
    // another piece, yet decode still prints the surface for it (found by the sentencepiece_model
    // fuzz target: the streamed text lacked the surface).
    std::string unk_surface;
    for (int id = 0; id < n; ++id)
        if (impl->sp.IsUnknown(id)) {
            impl->sp.Decode(std::vector<int>{id}, &unk_surface).IgnoreError();
            break;
        }

    impl->kinds.resize(size_t(n));
    impl->bytes.resize(size_t(n));
    for (int id = 0; id < n; ++id) {
        const std::string& p = impl->sp.IdToPiece(id);
        TokenKind k = TokenKind::Text;
        if (impl->sp.IsControl(id)) k = TokenKind::Control;
        else if (impl->sp.IsUnknown(id)) k = TokenKind::Unknown;
        else if (impl->sp.IsByte(id)) k = TokenKind::Byte;
        impl->kinds[size_t(id)] = k;
        switch (k) {
            case TokenKind::Text: impl->bytes[size_t(id)] = replace_space_symbol(p); break;
            case TokenKind::Byte: {
                const int b = byte_of_piece(p);
                if (b < 0) throw Error(corrupt + " (byte piece " + std::to_string(id) + " is '" + p + "')");
                impl->bytes[size_t(id)] = std::string(1, char(b));
                break;
            }
            case TokenKind::Unknown: impl->bytes[size_t(id)] = unk_surface; break;
            case TokenKind::Control: break;
        }
        if (k == TokenKind::Control || k == TokenKind::Unknown) impl->special_ids.push_back(id);
    }
    for (int id : facts.user_defined_ids)
        if (id < n) impl->special_ids.push_back(id);
    return std::shared_ptr<const SentencePieceTokenizer>(new SentencePieceTokenizer(std::move(impl)));
}

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

const std::string& SentencePieceTokenizer::path() const { return impl_->path; }

void SentencePieceTokenizer::check_id(int id) const {
    if (id < 0 || id >= int(impl_->kinds.size()))
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + impl_->path + " (" +
                    std::to_string(impl_->kinds.size()) + " pieces)");
}

std::vector<int> SentencePieceTokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    const auto status = impl_->sp.Encode(text, &ids);
    if (!status.ok()) throw Error("sentencepiece could not encode the text: " + status.ToString());
    return ids;
}

std::vector<int> SentencePieceTokenizer::encode_without_dummy_prefix(std::string_view text) const {
    std::call_once(impl_->no_prefix_once, [this] {
        impl_->no_prefix_ok =
            impl_->sp_no_prefix.LoadFromSerializedProto(sentencepiece_without_dummy_prefix(impl_->serialized)).ok();
    });
    if (!impl_->no_prefix_ok) throw Error("cannot build the no-dummy-prefix variant of " + impl_->path);
    std::vector<int> ids;
    const auto status = impl_->sp_no_prefix.Encode(text, &ids);
    if (!status.ok()) throw Error("sentencepiece could not encode the text: " + status.ToString());
    return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int>& ids) const {
    for (int id : ids) check_id(id);
    std::string text;
    const auto status = impl_->sp.Decode(ids, &text);
    if (!status.ok()) throw Error("sentencepiece could not decode the ids: " + status.ToString());
    return text;
}

std::string SentencePieceTokenizer::token_bytes(int id) const {
    check_id(id);
    return impl_->bytes[size_t(id)];
}

TokenKind SentencePieceTokenizer::token_kind(int id) const {
    check_id(id);
    return impl_->kinds[size_t(id)];
}

LeadingSpaceRule SentencePieceTokenizer::leading_space_rule() const { return impl_->leading; }

std::string SentencePieceTokenizer::piece(int id) const {
    check_id(id);
    return impl_->sp.IdToPiece(id);
}

int SentencePieceTokenizer::piece_to_id(std::string_view piece) const {
    const int id = impl_->sp.PieceToId(piece);
    // The library answers unk_id for unknown pieces; tell those apart from "<unk>" itself.
    if (impl_->sp.IsUnknown(id) && impl_->sp.IdToPiece(id) != piece) return -1;
    return id;
}

int SentencePieceTokenizer::vocab_size() const { return int(impl_->kinds.size()); }
bool SentencePieceTokenizer::is_control(int id) const {
    return id >= 0 && id < vocab_size() && impl_->kinds[size_t(id)] == TokenKind::Control;
}
int SentencePieceTokenizer::bos_id() const { return impl_->sp.bos_id(); }
int SentencePieceTokenizer::eos_id() const { return impl_->sp.eos_id(); }
int SentencePieceTokenizer::unk_id() const { return impl_->sp.unk_id(); }
std::vector<int> SentencePieceTokenizer::special_token_ids() const { return impl_->special_ids; }

}  // namespace folio
