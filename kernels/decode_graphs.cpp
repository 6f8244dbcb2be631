#include "kernels/decode_graphs.h"

#include "kernels/common/cuda_check.h"

namespace folio::cuda {

int DecodeGraphs::padded_batch(int seqs, int max_seqs) {
    int p = 1;
    while (p < seqs && p < 16) p *= 2;
    if (seqs > 16) p = seqs <= 64 ? (seqs + 7) / 8 * 8 : (seqs + 31) / 32 * 32;
    return p < max_seqs ? p : max_seqs;
}

int DecodeGraphs::padded_width(int blocks, int max_blocks) {
    int w = 16;
    while (w < blocks) w *= 2;
    return w < max_blocks ? w : max_blocks;
}

void DecodeGraphs::capture(Key key, cudaStream_t stream, const std::function<void()>& enqueue) {
    // Thread-local mode: other threads (the UI asking for memory figures) stay unaffected.
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
        enqueue();
    } catch (...) {
        cudaGraph_t broken = nullptr;
        cudaStreamEndCapture(stream, &broken);
        if (broken) cudaGraphDestroy(broken);
        cudaGetLastError();
        throw;
    }
    cudaGraph_t graph = nullptr;
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(e, "cudaGraphInstantiate");
    graphs_[key] = exec;
}

void DecodeGraphs::launch(Key key, cudaStream_t stream) const {
    check(cudaGraphLaunch(graphs_.at(key), stream), "cudaGraphLaunch");
}

void DecodeGraphs::clear() {
    for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
    graphs_.clear();
}

}  // namespace folio::cuda
