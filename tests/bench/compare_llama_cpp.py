#!/usr/bin/python3
"""Folio's CPU backend against llama.cpp on the same weights, the same machine and the same run.

  tests/bench/compare_llama_cpp.py LLAMA_BUILD LLAMA_SRC [--work DIR] [--rounds 3] [--model llama-0.8b]
                                   [--folio-build build] [--threads N] [--skip dense|awq]

LLAMA_BUILD is a llama.cpp build folder (CPU, Release) holding bin/llama-bench, bin/llama-batched-bench
and bin/llama-quantize; LLAMA_SRC its source folder (for gguf-py). Build llama.cpp outside this
repository, e.g. in /tmp:
  cmake -S SRC -B /tmp/llama-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF
  ninja -C /tmp/llama-build llama-bench llama-batched-bench llama-quantize
Needs python3-numpy and python3-sentencepiece (Debian packages).

What it does, in --work (default /tmp/folio-vs-llama):
 1. `folio-cli export` writes dummy:MODEL's fp16 weights as a Hugging Face folder, and the same weights
    quantized to AutoAWQ 4-bit g128 by round to nearest (lm_head stays fp16, as AutoAWQ leaves it).
 2. hf_to_gguf_llama.py converts the fp16 folder to GGUF F16; llama-quantize makes Q4_0 and Q4_K_M
    of it (llama.cpp's default mixes: output.weight in Q6_K).
 3. Rounds, each running every engine once, alternating llama.cpp and Folio so that a slow moment
    of a shared machine hits both:
      llama.cpp: llama-bench -p 512 -n 64 (pp512, tg64) and llama-batched-bench -npp 32 -ntg 64
                 -npl 16 (16 parallel sequences, S_TG);
      Folio:     folio-bench --suite decode --streams 1,16 --prefill-len 512 --decode-tokens 64
                 (prompt of 512 in one step; decode of 1 and 16 streams after 32-token prompts).
 4. Prints medians (and ranges) and the ratios of Folio to llama.cpp Q4_0 (AWQ rows) and F16
    (fp16 row), next to the CPU backend's targets (docs/benchmarks.md).
"""
import argparse, json, os, statistics, subprocess, sys, time

TARGETS = {  # folio / llama.cpp, per metric: (AWQ vs Q4_0, fp16 vs F16)
    'decode_1': (1.15, 1.0), 'prompt_512': (3.0, 1.5), 'decode_16': (2.0, 1.2)}
METRICS = [('decode_1', 'decode, 1 stream'), ('prompt_512', 'prompt, 512 tokens'), ('decode_16', 'decode, 16 streams')]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return p.stdout


def llama_cpp(bins, gguf, threads):
    out = run([bins['llama-bench'], '-m', gguf, '-p', '512', '-n', '64', '-r', '1', '-t', str(threads), '-o', 'json'])
    rows = json.loads(out)
    pp = next(r['avg_ts'] for r in rows if r['n_prompt'] == 512 and r['n_gen'] == 0)
    tg = next(r['avg_ts'] for r in rows if r['n_gen'] == 64 and r['n_prompt'] == 0)
    out = run([bins['llama-batched-bench'], '-m', gguf, '-c', '2048', '-b', '2048', '-ub', '512', '-npp', '32', '-ntg', '64',
               '-npl', '16', '-t', str(threads), '--output-format', 'jsonl'])
    s_tg = next(json.loads(l)['speed_tg'] for l in out.splitlines() if l.startswith('{'))
    return {'decode_1': tg, 'prompt_512': pp, 'decode_16': s_tg}


def folio(bench, folder, mode, threads):
    cmd = [bench, '--model', folder, '--backend', 'cpu', '--cpu-activations', mode, '--suite', 'decode', '--rounds', '1',
           '--streams', '1,16', '--prefill-len', '512', '--decode-tokens', '64', '--bandwidth-mib', '256', '--json']
    if threads:
        cmd += ['--threads', str(threads)]
    j = json.loads(run(cmd))
    by = {r['streams']: r['tok_s'] for r in j['decode']}
    return {'decode_1': by[1], 'prompt_512': j['prefill_tok_s'], 'decode_16': by[16], 'device': j['device']}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('llama_build'); ap.add_argument('llama_src')
    ap.add_argument('--work', default='/tmp/folio-vs-llama')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--model', default='llama-0.8b', help='dummy model shape (fp16 weights)')
    ap.add_argument('--folio-build', default=os.path.join(os.path.dirname(__file__), '..', '..', 'build'))
    ap.add_argument('--threads', type=int, default=os.cpu_count())
    ap.add_argument('--skip', choices=['dense', 'awq'], help='leave out the fp16 or the 4-bit engines')
    a = ap.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, '..', '..'))
    cli = os.path.join(a.folio_build, 'app', 'cli', 'folio-cli')
    bench = os.path.join(a.folio_build, 'app', 'bench', 'folio-bench')
    bins = {n: os.path.join(a.llama_build, 'bin', n) for n in ('llama-bench', 'llama-batched-bench', 'llama-quantize')}
    for p in [cli, bench, *bins.values()]:
        if not os.access(p, os.X_OK):
            sys.exit(f'{p} is missing: build it first (see the top of this script)')
    if not os.path.isdir(os.path.join(a.llama_src, 'gguf-py', 'gguf')):
        sys.exit(f'{a.llama_src}/gguf-py/gguf is missing: LLAMA_SRC must be the llama.cpp source folder')
    try:
        import numpy, sentencepiece  # noqa: F401  (the converter's needs)
    except ImportError as e:
        sys.exit(f'{e}: apt-get install python3-numpy python3-sentencepiece')
    os.makedirs(a.work, exist_ok=True)
    w = lambda *p: os.path.join(a.work, *p)

    # 1-2. The same weights for both engines.
    tok = os.path.join(root, 'tests', 'fixtures', 'tokenizers', 'llama2')
    f16_dir, awq_dir = w(a.model + '-f16'), w(a.model + '-awq')
    for d, extra in ((f16_dir, []), (awq_dir, ['--format', 'awq'])):
        if not os.path.exists(os.path.join(d, 'config.json')):
            print(f'exporting dummy:{a.model} to {d}', flush=True)
            run([cli, 'export', '--model', 'dummy:' + a.model, '--out', d, '--tokenizer', tok] + extra)
    gguf = {'F16': w(a.model + '-f16.gguf'), 'Q4_0': w(a.model + '-q4_0.gguf'), 'Q4_K_M': w(a.model + '-q4_k_m.gguf')}
    if not os.path.exists(gguf['F16']):
        print('converting to GGUF F16', flush=True)
        env = dict(os.environ, PYTHONPATH=os.path.join(a.llama_src, 'gguf-py'))
        run([sys.executable, os.path.join(here, 'hf_to_gguf_llama.py'), f16_dir, gguf['F16']], env=env)
    for q in ('Q4_0', 'Q4_K_M'):
        if not os.path.exists(gguf[q]):
            print(f'quantizing to {q}', flush=True)
            run([bins['llama-quantize'], gguf['F16'], gguf[q], q])

    # 3. Alternating rounds.
    engines = []
    if a.skip != 'awq':
        engines += [('llama.cpp Q4_0', lambda: llama_cpp(bins, gguf['Q4_0'], a.threads)),
                    ('Folio AWQ g128, int8 (default)', lambda: folio(bench, awq_dir, 'int8', a.threads)),
                    ('llama.cpp Q4_K_M', lambda: llama_cpp(bins, gguf['Q4_K_M'], a.threads)),
                    ('Folio AWQ g128, exact', lambda: folio(bench, awq_dir, 'exact', a.threads))]
    if a.skip != 'dense':
        engines += [('llama.cpp F16', lambda: llama_cpp(bins, gguf['F16'], a.threads)),
                    ('Folio fp16 (default)', lambda: folio(bench, f16_dir, 'int8', a.threads)),
                    ('Folio fp16, exact', lambda: folio(bench, f16_dir, 'exact', a.threads))]
    results = {name: [] for name, _ in engines}
    device = ''
    t0 = time.time()
    for r in range(a.rounds):
        for name, fn in engines:
            res = fn()
            device = device or res.get('device', '')
            res.pop('device', None)
            results[name].append(res)
            print(f'round {r + 1}/{a.rounds} {name}: ' + ', '.join(f'{k} {v:.1f}' for k, v in res.items()), flush=True)

    # 4. Medians, ranges, ratios.
    med = lambda name, k: statistics.median(x[k] for x in results[name])
    print(f'\n{a.model}: medians of {a.rounds} alternating rounds, tok/s (range); {a.threads} threads; {time.time() - t0:.0f} s')
    print(f'Folio on {device} (the activation mode as each row says)')
    print('| engine | ' + ' | '.join(label for _, label in METRICS) + ' |')
    print('|---|' + '---|' * len(METRICS))
    for name in results:
        cells = []
        for k, _ in METRICS:
            v = [x[k] for x in results[name]]
            cells.append(f'{statistics.median(v):.1f} ({min(v):.1f}–{max(v):.1f})')
        print(f'| {name} | ' + ' | '.join(cells) + ' |')
    print('\n| Folio ÷ llama.cpp | ' + ' | '.join(label for _, label in METRICS) + ' |')
    print('|---|' + '---|' * len(METRICS))
    pairs = []
    if a.skip != 'awq':
        pairs += [('Folio AWQ g128, int8 (default)', 'llama.cpp Q4_0', 0), ('Folio AWQ g128, exact', 'llama.cpp Q4_0', 0),
                  ('Folio AWQ g128, int8 (default)', 'llama.cpp Q4_K_M', None)]
    if a.skip != 'dense':
        pairs += [('Folio fp16 (default)', 'llama.cpp F16', 1), ('Folio fp16, exact', 'llama.cpp F16', None)]
    for f, l, target in pairs:
        cells = []
        for k, _ in METRICS:
            # Ratio of medians, and the range of the per-round ratios (each round ran both engines).
            per_round = [x[k] / y[k] for x, y in zip(results[f], results[l])]
            cell = f'{med(f, k) / med(l, k):.2f}× ({min(per_round):.2f}–{max(per_round):.2f})'
            if target is not None:
                goal = TARGETS[k][target]
                cell += f', target ≥ {goal:g}× ' + ('met' if med(f, k) / med(l, k) >= goal else 'not met')
            cells.append(cell)
        print(f'| {f} ÷ {l} | ' + ' | '.join(cells) + ' |')
    with open(w('results.json'), 'w') as out:
        json.dump({'model': a.model, 'rounds': a.rounds, 'threads': a.threads, 'device': device, 'results': results}, out, indent=1)
    print(f'\nper-round figures: {w("results.json")}')


if __name__ == '__main__':
    main()
