#!/usr/bin/env python3
"""The baseline for device_check.sh: Hugging Face transformers generate() in fp16 on the same GPU, on
a randomly initialised Llama-2-7B (same shapes as dummy:llama-2-7b; nothing is downloaded), greedy,
exactly --output-len new tokens per sequence. Prints one JSON line per batch size as it finishes,
{"batch": B, "output_tokens_per_s": X, "seconds": S} or {"batch": B, "error": "..."} when it does not
fit, so a run cut off by a time limit keeps what it measured."""
import argparse
import json
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-sizes", default="1,8,64,256")
    ap.add_argument("--input-len", type=int, default=128)
    ap.add_argument("--output-len", type=int, default=128)
    a = ap.parse_args()
    cfg = LlamaConfig(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096, rms_norm_eps=1e-5)
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    torch.set_default_dtype(torch.float32)
    model.eval()
    for bs in [int(b) for b in a.batch_sizes.split(",")]:
        try:
            ids = torch.randint(3, cfg.vocab_size, (bs, a.input_len), device="cuda")
            mask = torch.ones_like(ids)
            kw = dict(do_sample=False, pad_token_id=0, eos_token_id=None)
            with torch.no_grad():
                model.generate(ids[:, :8], attention_mask=mask[:, :8], max_new_tokens=4, min_new_tokens=4, **kw)  # warm-up
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                out = model.generate(ids, attention_mask=mask, max_new_tokens=a.output_len, min_new_tokens=a.output_len, **kw)
                torch.cuda.synchronize()
                dt = time.perf_counter() - t0
            new = (out.shape[1] - a.input_len) * bs
            result = {"batch": bs, "output_tokens_per_s": round(new / dt, 1), "seconds": round(dt, 2)}
        except torch.cuda.OutOfMemoryError as e:
            result = {"batch": bs, "error": "out of memory: " + str(e).splitlines()[0]}
            torch.cuda.empty_cache()
        print(json.dumps(result), flush=True)
        print(f"batch {bs}: {result}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
