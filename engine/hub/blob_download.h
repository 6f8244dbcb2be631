#pragma once
// One file of a repository into the cache's blobs/, resumable and verified: bytes go to
// blobs/<etag>.incomplete (continued with a Range request after a broken connection, a pause or a
// restart), are hashed as they arrive, and the file takes its final name only when its hash is the
// one the Hub listed. Bad data is deleted, said so, and fetched once more; it is never kept under a
// name a later load would trust.
#include <cstdint>
#include <functional>
#include <string>

#include "engine/hub/hub_api.h"
#include "engine/hub/hub_client.h"

namespace folio::hub {

struct BlobResult {
    bool already_cached = false;    // the blob was there (nothing was fetched)
    uint64_t bytes_fetched = 0;     // over the network, all attempts together
    uint64_t resumed_from = 0;      // bytes of a partial download that were reused
    int attempts = 0;
};

// Running total of the file's bytes in hand (resumed ones included); called on the downloading
// thread, often. Must be cheap.
using BytesCallback = std::function<void(uint64_t bytes_in_hand)>;
// A sentence worth showing a person: a retry, a mismatch, a server that ignored Range.
using NoticeCallback = std::function<void(const std::string&)>;

// Makes blobs/<file.etag()> of `listing.repo_id` under `cache_root`. Holds the blob's lock meanwhile
// (a second download of the same blob waits, then finds it done). Throws HubError (access, not found,
// gave up after retries: the partial data stays for a later resume), folio::Error (disk full or not
// writable; verification failed twice: nothing kept), Cancelled (the partial data stays).
BlobResult download_blob(const HubClient& client, const std::string& cache_root, const RepoListing& listing,
                         const RepoFile& file, const BytesCallback& on_bytes, const NoticeCallback& on_notice);

// "1.5 GB", "312 MB", "12 KB", "17 B" (decimal units, as download sizes are shown).
std::string human_bytes(double bytes);

}  // namespace folio::hub
