#!/usr/bin/python3
"""Convert a float Hugging Face Llama folder with a sentencepiece tokenizer.model into a GGUF F16 file
for llama.cpp, with numpy and llama.cpp's own gguf-py only (its converter needs torch, absent here).
Used to measure llama.cpp side by side with Folio on the same model shape; nothing of llama.cpp is kept.

  PYTHONPATH=LLAMA_CPP/gguf-py hf_to_gguf_llama.py HF_DIR OUT.gguf

A copy of the team's shared tool, kept here so that tests/bench/compare_llama_cpp.py needs nothing
outside the repository.
"""
import json, os, struct, sys
import numpy as np
import gguf
import sentencepiece as spm

DTYPES = {'F32': '<f4', 'F16': '<f2'}


def load_tensors(src):
    """{name: numpy array} from model.safetensors or the shards an index names (F32/F16/BF16)."""
    index = os.path.join(src, 'model.safetensors.index.json')
    files = sorted(set(json.load(open(index))['weight_map'].values())) if os.path.exists(index) else ['model.safetensors']
    out = {}
    for f in files:
        buf = open(os.path.join(src, f), 'rb').read()
        (n,) = struct.unpack('<Q', buf[:8])
        for name, t in json.loads(buf[8:8 + n]).items():
            if name == '__metadata__':
                continue
            a, b = t['data_offsets']
            raw = buf[8 + n + a: 8 + n + b]
            arr = ((np.frombuffer(raw, '<u2').astype(np.uint32) << 16).view(np.float32) if t['dtype'] == 'BF16'
                   else np.frombuffer(raw, DTYPES[t['dtype']]))
            out[name] = arr.reshape(t['shape'])
    return out


def permute(w, n_head):       # HF rotate_half layout -> llama.cpp's interleaved RoPE layout (as its converter does)
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def main():
    src, out = sys.argv[1:3]
    cfg = json.load(open(os.path.join(src, 'config.json')))
    t = load_tensors(src)
    H, KV, E = cfg['num_attention_heads'], cfg['num_key_value_heads'], cfg['hidden_size']
    w = gguf.GGUFWriter(out, 'llama')
    w.add_name(os.path.basename(os.path.normpath(src)))
    w.add_context_length(cfg.get('max_position_embeddings', 4096))
    w.add_embedding_length(E)
    w.add_block_count(cfg['num_hidden_layers'])
    w.add_feed_forward_length(cfg['intermediate_size'])
    w.add_head_count(H); w.add_head_count_kv(KV)
    w.add_rope_dimension_count(E // H)
    w.add_rope_freq_base(cfg.get('rope_theta', 10000.0))
    w.add_layer_norm_rms_eps(cfg.get('rms_norm_eps', 1e-5))
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    sp = spm.SentencePieceProcessor(model_file=os.path.join(src, 'tokenizer.model'))
    toks, scores, types = [], [], []
    for i in range(sp.vocab_size()):
        toks.append(sp.id_to_piece(i).encode()); scores.append(sp.get_score(i))
        types.append(gguf.TokenType.UNKNOWN if sp.is_unknown(i) else gguf.TokenType.CONTROL if sp.is_control(i)
                     else gguf.TokenType.BYTE if sp.is_byte(i) else gguf.TokenType.NORMAL)
    w.add_vocab_size(len(toks))
    w.add_tokenizer_model('llama'); w.add_token_list(toks); w.add_token_scores(scores); w.add_token_types(types)
    w.add_bos_token_id(1); w.add_eos_token_id(2); w.add_add_bos_token(True)
    names = {'self_attn.q_proj': 'attn_q', 'self_attn.k_proj': 'attn_k', 'self_attn.v_proj': 'attn_v',
             'self_attn.o_proj': 'attn_output', 'mlp.gate_proj': 'ffn_gate', 'mlp.up_proj': 'ffn_up',
             'mlp.down_proj': 'ffn_down', 'input_layernorm': 'attn_norm', 'post_attention_layernorm': 'ffn_norm'}
    for k, v in t.items():
        if k == 'model.embed_tokens.weight': n = 'token_embd.weight'
        elif k == 'model.norm.weight': n = 'output_norm.weight'
        elif k == 'lm_head.weight': n = 'output.weight'
        else:
            parts = k.split('.')                      # model.layers.L.<module...>.weight
            n = f"blk.{parts[2]}.{names['.'.join(parts[3:-1])]}.weight"
            if parts[4] == 'q_proj': v = permute(v, H)
            if parts[4] == 'k_proj': v = permute(v, KV)
        v = v.astype(np.float32 if v.ndim == 1 else np.float16)
        w.add_tensor(n, v)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    print(f'{out}: {len(t)} tensors')


if __name__ == '__main__':
    main()
