#include "engine/hub/content_hash.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

#include "engine/core/error.h"

namespace folio::hub {

struct ContentHash::State {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool done = false;
    ~State() { EVP_MD_CTX_free(ctx); }
};

ContentHash::ContentHash(Kind kind, uint64_t total_size) : s_(std::make_unique<State>()) {
    if (!s_->ctx || EVP_DigestInit_ex(s_->ctx, kind == Kind::Sha256 ? EVP_sha256() : EVP_sha1(), nullptr) != 1)
        throw Error("cannot start a hash (OpenSSL EVP_DigestInit failed)");
    if (kind == Kind::GitBlobSha1) {
        const std::string header = "blob " + std::to_string(total_size);
        update(header.data(), header.size() + 1);  // with its terminating NUL
    }
}

ContentHash::~ContentHash() = default;

void ContentHash::update(const void* data, size_t size) {
    if (s_->done) throw Error("ContentHash::update after hex_digest");
    EVP_DigestUpdate(s_->ctx, data, size);
}

std::string ContentHash::hex_digest() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(s_->ctx, md, &len);
    s_->done = true;
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

void ContentHash::update_from_file(const std::string& path, uint64_t size) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    std::vector<char> buf(1 << 20);
    uint64_t left = size;
    while (left > 0) {
        const ssize_t n = ::read(fd, buf.data(), size_t(std::min<uint64_t>(left, buf.size())));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const std::string why = n < 0 ? std::strerror(errno) : "it is shorter than expected";
            ::close(fd);
            throw Error("cannot read " + path + ": " + why);
        }
        update(buf.data(), size_t(n));
        left -= uint64_t(n);
    }
    ::close(fd);
}

std::string hash_file(ContentHash::Kind kind, const std::string& path, uint64_t size) {
    ContentHash h(kind, size);
    h.update_from_file(path, size);
    return h.hex_digest();
}

}  // namespace folio::hub
