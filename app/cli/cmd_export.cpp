// folio-cli export --model DIR|dummy:NAME --out DIR --tokenizer FILE|DIR [--format float|awq]
//                  [--group-size 128] [--weights-seed S]
// Writes a float model (typically a dummy:NAME one) as a Hugging Face folder, as floats or quantized
// to AutoAWQ 4-bit by round to nearest, so that other engines (llama.cpp's converter) and Folio can
// be run on the same weights (tests/bench/compare_llama_cpp.sh).
#include <cstdio>

#include "app/cli/cli_args.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_export.h"

namespace folio::cli {

int run_export(int argc, char** argv, int first) {
    const Args args(argc, argv, first, {"model", "out", "tokenizer", "format", "group-size", "weights-seed"}, {});
    if (!args.positional().empty()) throw Error("unexpected argument '" + args.positional().front() + "'");
    ExportOptions o;
    o.out_dir = args.require("out");
    o.tokenizer_model = args.require("tokenizer");
    const std::string format = args.get_or("format", "float");
    if (format != "float" && format != "awq") throw Error("--format takes float or awq, got '" + format + "'");
    o.awq = format == "awq";
    o.group_size = args.get_int("group-size", 128);
    LoadOptions lo;
    lo.seed = uint64_t(args.get_int("weights-seed", 1234));
    const auto model = load_model(args.require("model"), lo);
    export_model(*model, o);
    std::printf("%s: %s (%s) written%s\n", o.out_dir.c_str(), model->name.c_str(), model->quantization_name().c_str(),
                o.awq ? (", quantized to AWQ 4-bit g" + std::to_string(o.group_size) + " (round to nearest)").c_str() : "");
    return 0;
}

}  // namespace folio::cli
