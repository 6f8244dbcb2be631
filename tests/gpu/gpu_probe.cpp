// folio-gpu-probe [dummy:NAME] [--context N]: what device_check.sh needs for the benchmark floor,
// as one JSON line: the device, its measured device-to-device copy bandwidth (bytes read plus
// written per second, best of several 1 GiB copies timed with events) and, for a model, the bytes
// a decode step must read: weights as the CUDA backend holds them plus the KV of N tokens.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "engine/model/dummy_model.h"
#include "kernels/common/cuda_check.h"
#include "kernels/device_buffer.h"

using namespace folio;

namespace {

uint64_t linear_bytes(int in, int out, const ModelConfig& c) {
    if (c.quant.method == QuantConfig::Method::Awq)
        return uint64_t(in) * out / 2 + uint64_t(in / c.quant.group_size) * out * (4 / 8.0 + 2);
    return uint64_t(in) * out * 2;
}

const char* kUsage =
    "usage: folio-gpu-probe [dummy:NAME] [--context N]\n"
    "\n"
    "One JSON line: the device, its device-to-device copy bandwidth and, for a model, the bytes a\n"
    "decode step must read (weights as the CUDA backend holds them plus the KV of N tokens).\n";

int run(int argc, char** argv) {
    const cli::Args args(argc, argv, 1, {"context"}, {});
    if (args.positional().size() > 1) throw cli::UsageError("one model at most, got '" + args.positional()[1] + "' too");
    const std::string model = args.positional().empty() ? "" : args.positional()[0];
    const int context = args.get_int("context", 0);
    if (context < 0) throw cli::UsageError("--context must be at least 0");
    {
        cudaDeviceProp prop;
        cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        const size_t bytes = size_t(1) << 30;
        cuda::DeviceBuffer<unsigned char> a(bytes, "probe"), b(bytes, "probe");
        cuda::check(cudaMemset(a.get(), 1, bytes), "cudaMemset");
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        float best = 1e30f;
        for (int rep = 0; rep < 6; ++rep) {  // the first is a warm-up
            cudaEventRecord(e0);
            cuda::check(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            if (rep > 0 && ms < best) best = ms;
        }
        const double gbps = 2.0 * double(bytes) / (best * 1e-3) / 1e9;
        std::printf("{\"device\": \"%s\", \"sms\": %d, \"memory_gb\": %.1f, \"copy_gbps\": %.1f", prop.name,
                    prop.multiProcessorCount, double(prop.totalGlobalMem) / 1e9, gbps);
        if (!model.empty()) {
            const std::string name = model.rfind("dummy:", 0) == 0 ? model.substr(6) : model;
            const ModelConfig c = dummy_config(name);
            const int q = c.num_heads * c.head_dim, kv = c.num_kv_heads * c.head_dim;
            // lm_head (fp16, tied or not) is streamed every step; the embedding table only gathered.
            uint64_t w = uint64_t(c.vocab_size) * c.hidden_size * 2 + uint64_t(c.hidden_size) * 4;
            for (int l = 0; l < c.num_layers; ++l)
                w += linear_bytes(c.hidden_size, q + 2 * kv, c) + linear_bytes(q, c.hidden_size, c) +
                     linear_bytes(c.hidden_size, 2 * c.intermediate_size, c) + linear_bytes(c.intermediate_size, c.hidden_size, c) +
                     uint64_t(c.hidden_size) * 8;
            const uint64_t kv_per_token = uint64_t(2) * c.num_layers * kv * 2;
            std::printf(", \"model\": \"%s\", \"weight_bytes_per_step\": %llu, \"kv_bytes_per_token\": %llu, \"context\": %d, "
                        "\"floor_ms\": %.4f",
                        model.c_str(), (unsigned long long)w, (unsigned long long)kv_per_token, context,
                        double(w + kv_per_token * uint64_t(context)) / (gbps * 1e9) * 1e3);
        }
        std::printf("}\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return cli::run_program("folio-gpu-probe", kUsage, [&] { return run(argc, argv); });
}
