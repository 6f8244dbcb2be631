// Host implementation of the CUDA runtime subset in simt_runtime.h.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "simt_launch.h"
#include "simt_runtime.h"

struct SimtStream {
    bool capturing = false;
    bool invalidated = false;
    std::vector<std::function<void()>> recorded;
};
struct SimtEvent {
    std::chrono::steady_clock::time_point when;
};
struct SimtGraph {
    std::vector<std::function<void()>> ops;
};

namespace {

struct RuntimeState {
    std::map<void*, size_t> allocations;
    size_t in_use = 0;
    size_t total = size_t(8) << 30;
    cudaError_t last_error = cudaSuccess;
    int capturing_streams = 0;
};

RuntimeState& state() {
    static RuntimeState s;
    return s;
}

cudaError_t set_error(cudaError_t e) {
    if (e != cudaSuccess) state().last_error = e;
    return e;
}

// The real runtime rejects calls that could synchronise while a stream is captured in global mode.
bool unsafe_during_capture() { return state().capturing_streams > 0; }

cudaError_t enqueue(cudaStream_t stream, std::function<void()> op) {
    if (stream && stream->capturing) {
        stream->recorded.push_back(std::move(op));
        return cudaSuccess;
    }
    if (!stream && unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    op();
    return cudaSuccess;
}

}  // namespace

namespace folio::simt {

void launch_on_stream(cudaStream_t stream, const void* kernel, dim3 grid, dim3 block, size_t smem,
                      std::function<void()> body) {
    auto run = [=, body = std::move(body)] { run_grid(kernel, grid, block, smem, body); };
    if (stream && stream->capturing) {
        stream->recorded.push_back(std::move(run));
        return;
    }
    if (!stream && unsafe_during_capture())
        throw SimtError("kernel launched on the legacy default stream while another stream is being captured");
    run();
}

cudaError_t enqueue_host_work(cudaStream_t stream, std::function<void()> work) { return enqueue(stream, std::move(work)); }

bool is_device_range(const void* p, size_t bytes) {
    const auto& a = state().allocations;
    auto it = a.upper_bound(const_cast<void*>(p));  // the first allocation starting after p
    if (it == a.begin()) return false;
    --it;
    const auto* base = static_cast<const char*>(it->first);
    const auto* q = static_cast<const char*>(p);
    return q >= base && size_t(q - base) <= it->second && bytes <= it->second - size_t(q - base);
}

void set_device_memory(size_t total_bytes) { state().total = total_bytes; }
size_t device_bytes_in_use() { return state().in_use; }

}  // namespace folio::simt

cudaError_t cudaGetDeviceCount(int* count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int* device) {
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (device != 0) return set_error(cudaErrorInvalidDevice);
    std::memset(prop, 0, sizeof(*prop));
    std::strncpy(prop->name, "SIMT harness (host emulation)", sizeof(prop->name) - 1);
    prop->totalGlobalMem = state().total;
    prop->sharedMemPerBlockOptin = folio::simt::options().max_dynamic_smem_optin;
    prop->multiProcessorCount = 4;  // few: tests then exercise split-K and multi-partition paths
    prop->major = 8;
    prop->minor = 9;
    prop->l2CacheSize = 1 << 20;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return cudaErrorInvalidDevice;
    switch (attr) {
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; return cudaSuccess;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); return cudaSuccess;
    }
    return set_error(cudaErrorInvalidValue);
}
cudaError_t cudaDeviceSynchronize() {
    return unsafe_during_capture() ? set_error(cudaErrorStreamCaptureUnsupported) : cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId(char*, int, int) { return set_error(cudaErrorNotSupported); }  // no PCI device
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    *total_bytes = state().total;
    *free_bytes = state().total > state().in_use ? state().total - state().in_use : 0;
    return cudaSuccess;
}
cudaError_t cudaMalloc(void** ptr, size_t bytes) {
    if (unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    *ptr = nullptr;
    if (state().in_use + bytes > state().total) return set_error(cudaErrorMemoryAllocation);
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    if (!p) return set_error(cudaErrorMemoryAllocation);
    state().allocations[p] = bytes;
    state().in_use += bytes;
    *ptr = p;
    return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
    if (!ptr) return cudaSuccess;
    if (unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    auto it = state().allocations.find(ptr);
    if (it == state().allocations.end()) return set_error(cudaErrorInvalidValue);
    state().in_use -= it->second;
    state().allocations.erase(it);
    std::free(ptr);
    return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
    *ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    return *ptr ? cudaSuccess : set_error(cudaErrorMemoryAllocation);
}
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned) { return cudaMallocHost(ptr, bytes); }
cudaError_t cudaFreeHost(void* ptr) {
    std::free(ptr);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
    if (unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    if (bytes) std::memmove(dst, src, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t stream) {
    return enqueue(stream, [=] {
        if (bytes) std::memmove(dst, src, bytes);
    });
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind) {
    if (unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    if (width > dpitch || width > spitch) return set_error(cudaErrorInvalidValue);
    for (size_t r = 0; r < height; ++r)
        std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
    return cudaSuccess;
}
cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
    if (unsafe_during_capture()) return set_error(cudaErrorStreamCaptureUnsupported);
    std::memset(dst, value, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
    return enqueue(stream, [=] { std::memset(dst, value, bytes); });
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) {
    *stream = new SimtStream;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) { return cudaStreamCreate(stream); }
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (stream && stream->capturing) state().capturing_streams--;
    delete stream;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if ((stream && stream->capturing) || (!stream && unsafe_during_capture())) {
        if (stream) stream->invalidated = true;
        return set_error(cudaErrorStreamCaptureUnsupported);
    }
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) {
    *event = new SimtEvent;
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    delete event;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    return enqueue(stream, [event] { event->when = std::chrono::steady_clock::now(); });
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
    return cudaSuccess;
}
cudaError_t cudaGetLastError() {
    const cudaError_t e = state().last_error;
    state().last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return state().last_error; }
const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
        case cudaErrorNoDevice: return "cudaErrorNoDevice";
        case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
        case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
        case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
        case cudaErrorIllegalState: return "cudaErrorIllegalState";
        case cudaErrorNotSupported: return "cudaErrorNotSupported";
    }
    return "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t error) {
    switch (error) {
        case cudaSuccess: return "no error";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
        case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
        default: return cudaGetErrorName(error);
    }
}
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return set_error(cudaErrorInvalidValue);
    if (value < 0 || size_t(value) > folio::simt::options().max_dynamic_smem_optin) return set_error(cudaErrorInvalidValue);
    folio::simt::set_max_dynamic_smem(func, size_t(value));
    return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
    if (!stream || stream->capturing) return set_error(cudaErrorIllegalState);
    stream->capturing = true;
    stream->invalidated = false;
    stream->recorded.clear();
    state().capturing_streams++;
    return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    if (!stream || !stream->capturing) return set_error(cudaErrorIllegalState);
    stream->capturing = false;
    state().capturing_streams--;
    *graph = nullptr;
    if (stream->invalidated) return set_error(cudaErrorStreamCaptureInvalidated);
    *graph = new SimtGraph{std::move(stream->recorded)};
    stream->recorded.clear();
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
    *status = stream && stream->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
    *exec = new SimtGraph{graph->ops};
    return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    return enqueue(stream, [exec] {
        for (auto& op : exec->ops) op();
    });
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    delete exec;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    delete graph;
    return cudaSuccess;
}
