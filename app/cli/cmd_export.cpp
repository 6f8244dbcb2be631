// folio-cli export --model DIR|dummy:NAME --out DIR --tokenizer FILE|DIR [--format float|awq]
//                  [--dtype fp32|fp16|bf16] [--group-size 128] [--weights-seed S]
// Writes a float model (typically a dummy:NAME one) as a Hugging Face folder, as floats or quantized
// to AutoAWQ 4-bit by round to nearest, so that other engines (llama.cpp's converter) and Folio can
// be run on the same weights (tests/bench/compare_llama_cpp.py).
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_export.h"

namespace folio::cli {
namespace {

std::string usage() {
    return "usage: folio-cli export --model DIR|dummy:NAME --out DIR --tokenizer FILE|DIR [--format float|awq]\n"
           "                        [--dtype fp32|fp16|bf16] [--group-size 32|64|128] [--weights-seed S]\n"
           "\n"
           "Writes a float model (typically a dummy:NAME one) as a Hugging Face folder: config.json,\n"
           "model.safetensors and the tokenizer, as floats or quantized to AutoAWQ 4-bit by round to nearest,\n"
           "so that other engines and Folio can run the same weights.\n"
           "\n"
           "  --out DIR                a new (or empty) folder\n"
           "  --tokenizer FILE|DIR     the sentencepiece tokenizer.model to ship (its vocabulary must match)\n"
           "  --format float|awq       float: the weights as they are (default); awq: 4-bit, zero point\n"
           "  --dtype fp32|fp16|bf16   the floats' dtype in the folder, rounded to nearest even (default: as\n"
           "                           loaded); a weight beyond fp16's range refuses fp16\n"
           "  --group-size N           AWQ group size: 32, 64 or 128 (default 128)\n"
           "  --weights-seed N         seed of a dummy model's weights (default 1234)\n";
}

int run(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "out", "tokenizer", "format", "dtype", "group-size", "weights-seed"}, {});
    args.expect_no_positional();
    ExportOptions o;
    const std::string model_path = args.require("model");
    o.out_dir = args.require("out");
    o.tokenizer_model = args.require("tokenizer");
    const std::string format = args.get_or("format", "float");
    if (format != "float" && format != "awq") throw UsageError("--format takes float or awq, got '" + format + "'");
    o.awq = format == "awq";
    if (args.has("dtype")) {
        const std::string d = args.get_or("dtype", "");
        if (d == "fp32" || d == "float32") o.dtype = DType::F32;
        else if (d == "fp16" || d == "float16") o.dtype = DType::F16;
        else if (d == "bf16" || d == "bfloat16") o.dtype = DType::BF16;
        else throw UsageError("--dtype takes fp32, fp16 or bf16, got '" + d + "'");
    }
    o.group_size = args.get_int("group-size", 128);
    if (o.group_size != 32 && o.group_size != 64 && o.group_size != 128)
        throw UsageError("--group-size takes 32, 64 or 128, got " + std::to_string(o.group_size));
    LoadOptions lo;
    lo.seed = uint64_t(args.get_int("weights-seed", 1234));
    const auto model = load_model(model_path, lo);
    export_model(*model, o);
    std::printf("%s: %s (%s) written%s%s\n", o.out_dir.c_str(), model->name.c_str(), model->quantization_name().c_str(),
                o.dtype ? (" as " + std::string(dtype_name(*o.dtype))).c_str() : "", o.awq ? (", quantized to AWQ 4-bit g" + std::to_string(o.group_size) + " (round to nearest)").c_str() : "");
    return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

const Command export_command = {"export", "a float model as a Hugging Face folder (floats or AWQ 4-bit)", usage, run};

}  // namespace folio::cli
