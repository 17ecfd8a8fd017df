#!/usr/bin/env python3
"""Computes the TER vectors of metric/testdata with sacreBLEU, run from source.

mtune's TER (metric/ter.go) is checked against what this script writes. It
imports sacreBLEU's own modules from a source tree (PyPI is not reachable
where it was run, so sacreBLEU is not installed) and stubs what TER does not
use:

  - the package `sacrebleu` is created empty with __path__ pointing at the
    source, so sacrebleu/__init__.py (which imports the dataset code) is not
    run; its subpackages metrics/ and tokenizers/ import as usual;
  - `sacrebleu.version` (written by setuptools_scm at build time, absent from
    a checkout) is a module holding --version;
  - `portalocker`, `tabulate` and `colorama`, imported at the top of
    sacrebleu/utils.py for downloads, tables and colours, are empty modules
    (with a tabulate() returning "" and a colorama.init() doing nothing);
  - `sacrebleu.dataset`, imported at the bottom of utils.py, is a module with
    empty DATASETS and SUBSETS.

TER itself (metrics/ter.py, metrics/lib_ter.py, tokenizers/tokenizer_ter.py,
metrics/base.py, utils.sum_of_lists) runs unchanged.

Usage (from the repository root, sacreBLEU's tree extracted with
`git archive <commit> sacrebleu | tar -x -C SRC`):

  python3 metric/testdata/sacrebleu_ter.py --src SRC --version 2.6.0 \
      --commit <commit> --data ../shared/data/bleu/wmt15-en-ru-100 \
      --out metric/testdata
"""

import argparse
import json
import math
import os
import random
import sys
import types
import unicodedata


def load_sacrebleu(src, version):
    pkg = types.ModuleType("sacrebleu")
    pkg.__path__ = [os.path.join(src, "sacrebleu")]
    pkg.__version__ = version
    sys.modules["sacrebleu"] = pkg
    ver = types.ModuleType("sacrebleu.version")
    ver.__version__ = version
    sys.modules["sacrebleu.version"] = ver
    sys.modules["portalocker"] = types.ModuleType("portalocker")
    col = types.ModuleType("colorama")
    col.init = lambda *a, **k: None
    sys.modules["colorama"] = col
    tab = types.ModuleType("tabulate")
    tab.tabulate = lambda *a, **k: ""
    sys.modules["tabulate"] = tab
    ds = types.ModuleType("sacrebleu.dataset")
    ds.DATASETS = {}
    ds.SUBSETS = {}
    sys.modules["sacrebleu.dataset"] = ds
    from sacrebleu.metrics.ter import TER  # noqa: E402
    from sacrebleu.metrics import lib_ter  # noqa: E402
    return TER, lib_ter


def read_lines(path):
    # Lines split on "\n" only (not str.splitlines, which also splits on
    # U+0085, U+2028, ...), as sacreBLEU's CLI reads files.
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line[:-1] if line.endswith("\n") else line for line in f]


OPTION_SETS = [
    {},
    {"case_sensitive": True},
    {"normalized": True},
    {"no_punct": True},
    {"normalized": True, "no_punct": True},
    {"normalized": True, "case_sensitive": True},
    {"normalized": True, "no_punct": True, "asian_support": True},
]


def corpus_case(TER, name, hyps, refs, kwargs, hyp_source, ref_sources):
    """refs is a list of reference streams, read from ref_sources (file
    names in the data folder); the hypotheses are read from hyp_source, a
    file name or "synthetic_hyps"."""
    m = TER(**kwargs)
    score = m.corpus_score(hyps, refs)
    sig = m.get_signature().format()
    seg = m._extract_corpus_statistics(hyps, refs)
    sents = []
    for i, h in enumerate(hyps):
        s = TER(**kwargs).sentence_score(h, [r[i] for r in refs])
        sents.append({"edits": seg[i][0], "ref_len": seg[i][1],
                      "sentence_score": s.score})
    return {
        "name": name,
        "kwargs": kwargs,
        "hyps": hyp_source,
        "refs": ref_sources,
        "signature": sig,
        "score": score.score,
        "printed_w2": score.format(width=2),
        "printed_w1": score.format(width=1),
        "num_edits": score.num_edits,
        "ref_length": score.ref_length,
        "sentences": sents,
    }


def synthetic_hyps(refs, other):
    """Hypotheses made from the reference and another translation of each
    line: the first half of the other's words and the second half of the
    reference's, with the last three words moved to the front on every third
    line, so that shifts are found."""
    out = []
    for i, (r, o) in enumerate(zip(refs, other)):
        rw, ow = r.split(), o.split()
        w = ow[: len(ow) // 2] + rw[len(rw) // 2:]
        if i % 3 == 0 and len(w) > 4:
            w = w[-3:] + w[:-3]
        out.append(" ".join(w))
    return out


def random_pairs(lib_ter, seed):
    """Random token sequences (lower-case ASCII words, so that every
    tokenisation leaves them as they are) stressing the shift search: small
    vocabularies (many matches, the 1000-candidate limit), long sentences
    (the 50-word shift distance), very different lengths (the widened
    beam), and near-permutations (many shifts)."""
    rng = random.Random(seed)
    cases = []

    def add(kind, h, r):
        edits, rlen = lib_ter.translation_edit_rate(h, r)
        cases.append({"kind": kind, "hyp": " ".join(h), "ref": " ".join(r),
                      "edits": edits, "ref_len": rlen})

    def words(v, n):
        return [rng.choice(v) for _ in range(n)]

    vocab = ["w%d" % i for i in range(40)]
    for _ in range(150):
        v = vocab[: rng.randint(2, 12)]
        add("small-vocab", words(v, rng.randint(0, 30)), words(v, rng.randint(0, 30)))
    for _ in range(80):
        r = words(vocab[:25], rng.randint(5, 40))
        h = list(r)
        for _ in range(rng.randint(1, 4)):  # move blocks
            if len(h) < 3:
                break
            a = rng.randrange(len(h))
            b = min(len(h), a + rng.randint(1, 6))
            blk = h[a:b]
            del h[a:b]
            t = rng.randint(0, len(h))
            h[t:t] = blk
        for _ in range(rng.randint(0, 3)):  # edits
            op = rng.randrange(3)
            p = rng.randrange(len(h) + 1)
            if op == 0:
                h.insert(p, rng.choice(vocab))
            elif op == 1 and p < len(h):
                del h[p]
            elif p < len(h):
                h[p] = rng.choice(vocab)
        add("permuted", h, r)
    for _ in range(12):
        n = rng.randint(80, 160)
        r = words(vocab, n)
        h = r[n // 2:] + r[: n // 2]
        if rng.random() < 0.5:
            h = words(vocab[:3], 5) + h
        add("long", h, r)
    for _ in range(8):
        v = vocab[: rng.randint(2, 5)]
        add("long-small-vocab", words(v, rng.randint(40, 70)), words(v, rng.randint(40, 70)))
    for short, long_ in ((1, 60), (2, 130), (3, 200), (1, 151)):
        a, b = words(vocab[:6], short), words(vocab[:6], long_)
        add("length-ratio", a, b)
        add("length-ratio", b, a)
    noise = ["n%d" % i for i in range(30)]
    for _ in range(24):  # alignments that leave the beam
        r = words(vocab[:25], rng.randint(30, 80))
        k = rng.randint(20, 70)
        h = words(noise, k) + r if rng.random() < 0.5 else r + words(noise, k)
        if rng.random() < 0.5:
            h, r = r, h
        add("beam", h, r)
    for nh, nr in ((2, 130), (3, 200), (2, 151), (30, 60), (60, 30), (20, 100), (40, 40)):
        # A match just inside and just outside row 1's beam.
        ratio = nr / nh
        beam = math.ceil(ratio / 2 + 25) if 25 < ratio / 2 else 25
        pd = math.floor(ratio)
        lo, hi = max(0, pd - beam), min(nr + 1, pd + beam)
        for j in (lo - 1, lo, hi - 1, hi):
            if 1 <= j <= nr:
                r = ["z"] * nr
                r[j - 1] = "a"
                add("beam-edge", ["a"] + ["y"] * (nh - 1), r)
    # Pairs whose edit count changes when one of tercom's limits is moved
    # by one either way: lib_ter reads its module constants at call time, so
    # they are changed, only to select these pairs, and put back; the
    # recorded counts are computed with the constants as they are. Each
    # limit gets pairs made to come near it.
    def near_candidates():  # many matches: the candidate limit is reached
        v = vocab[: rng.randint(2, 6)]
        return words(v, rng.randint(15, 40)), words(v, rng.randint(15, 40))

    def moved_block(size, dist):  # a block of `size` words moved `dist` away
        r = words(vocab, dist + size + rng.randint(5, 20))
        a = rng.randint(0, len(r) - size - dist)
        h = r[:a] + r[a + size: a + size + dist] + r[a: a + size] + r[a + size + dist:]
        if rng.random() < 0.5:
            h, r = r, h
        return h, r

    def off_diagonal():  # alignments about a beam's width off the diagonal
        r = words(vocab[:20], rng.randint(30, 60))
        h = words(noise, rng.randint(20, 30)) + r
        if rng.random() < 0.5:
            h = r + words(noise, rng.randint(20, 30))
        if rng.random() < 0.5:
            h, r = r, h
        return h, r

    limits = [("_MAX_SHIFT_SIZE", 10, lambda: moved_block(rng.randint(9, 12), rng.randint(12, 30))),
              ("_MAX_SHIFT_DIST", 50, lambda: moved_block(rng.randint(1, 4), rng.randint(46, 54))),
              ("_BEAM_WIDTH", 25, off_diagonal)]
    for name, value, make in limits:
        assert getattr(lib_ter, name) == value
        for delta in (-1, 1):
            found = 0
            for _ in range(300):
                if found == 3:
                    break
                h, r = make()
                want = lib_ter.translation_edit_rate(h, r)
                setattr(lib_ter, name, value + delta)
                try:
                    moved = lib_ter.translation_edit_rate(h, r)
                finally:
                    setattr(lib_ter, name, value)
                if moved != want:
                    add(f"limit{name}{delta:+d}", h, r)
                    found += 1
            print(f"{name}{delta:+d}: {found} pairs", file=sys.stderr)

    # The candidate limit changes a count only when a round of the search
    # ends (returns from _shift) with a gain above 1 just below or just
    # above 1000 candidates: _shift is wrapped, only to see where rounds
    # end, and the limit moved by 10 to confirm.
    assert lib_ter._MAX_SHIFT_CANDIDATES == 1000
    shift, ends = lib_ter._shift, []

    def watched(*a):
        out = shift(*a)
        ends.append((out[2], out[0]))
        return out

    found = {-10: 0, 10: 0}
    lib_ter._shift = watched
    try:
        for _ in range(3000):
            if min(found.values()) == 3:
                break
            h, r = near_candidates()
            ends.clear()
            want = lib_ter.translation_edit_rate(h, r)
            for delta in found:
                lo, hi = sorted((1000, 1000 + delta))
                if found[delta] == 3 or not any(lo <= c < hi and g > 1 for c, g in ends):
                    continue
                lib_ter._MAX_SHIFT_CANDIDATES = 1000 + delta
                try:
                    moved = lib_ter.translation_edit_rate(h, r)
                finally:
                    lib_ter._MAX_SHIFT_CANDIDATES = 1000
                if moved != want:
                    add(f"limit_MAX_SHIFT_CANDIDATES{delta:+d}", h, r)
                    found[delta] += 1
    finally:
        lib_ter._shift = shift
    print(f"_MAX_SHIFT_CANDIDATES: {found}", file=sys.stderr)
    add("empty", [], ["a", "b"])
    add("empty", ["a", "b"], [])
    add("empty", [], [])
    return cases


TOKENIZER_INPUTS = [
    "a b c d", "", "a b c d.", "A B C D.", "A ; B ) C : D.", "a b (c) d.",
    "Jim's car.", "4.2", "美众院公布对特", "りの拳銃を持",
    "Hello, World! 3.14, 1,000 and 5-6 -- e.g. U.S.A. (test)",
    "&quot;quoted&quot; &amp;amp; &lt;tag&gt; a&b",
    "line one\n-continued\nline two\n",
    "it's John's 's 'S JOHN'S",
    "ΟΔΥΣΣΕΥΣ ΣΟΦΟΣ. ΑΣ ΣΑ Σ", "İSTANBUL İ ıI",
    "tab\there\u00a0nbsp\u3000ideo\u2028ls\x1cfs\x85nel\u200bzw",
    "trailing spaces   \t", "  leading",
    "日本語のテキスト、句読点。「引用」！？（括弧）ｶﾀｶﾅ・中点",
    "ＡＢＣ，ＤＥＦ．ｇｈｉ：ｊｋｌ；！＂（）",
    "㈠㈡ ㌀ 丽 ﹐ ㇀ ⺀ 㐀 䶵",
    "Вася, привет! Как дела? 2,5 рубля.",
    "a.b,c;d:e?f!g\"h(i)j",
    "x.. ..y ,, 1., .1 a.1 1.a",
    "ÀÉÎÕÜ ß ǅ Ω K Å",
]


def tokenizer_vectors(TER):
    out = []
    for kwargs in [{}, {"case_sensitive": True}] + OPTION_SETS[2:] + [
            {"asian_support": True},
            {"no_punct": True, "asian_support": True},
            {"normalized": True, "asian_support": True}]:
        m = TER(**kwargs)
        out.append({"kwargs": kwargs,
                    "cases": [[s, m._preprocess_segment(s)] for s in TOKENIZER_INPUTS]})
    return out


def ranges(cps):
    out = []
    for c in cps:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def python_unicode():
    """What str.lower() does in this Python, as data: every code point whose
    lower case differs from it; the ranges of code points that the Final_Sigma
    rule skips (Case_Ignorable) and that it sees as cased (Cased and not
    Case_Ignorable), both read from str.lower's behaviour; the white space of
    str.split(); and the code points assigned in this Python's Unicode
    database."""
    lower, cased, ign, space, assigned = [], [], [], [], []
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        ch = chr(c)
        lc = ch.lower()
        if lc != ch:
            lower.append([c] + [ord(x) for x in lc])
        a = (ch + "\u03a3").lower()[-1] == "\u03c2"
        b = ("A" + ch + "\u03a3").lower()[-1] == "\u03c2"
        if a:
            cased.append(c)
        elif b:
            ign.append(c)
        if ch.isspace():
            space.append(c)
        if unicodedata.category(ch) != "Cn":
            assigned.append(c)
    return {
        "python": sys.version.split()[0],
        "unicode": unicodedata.unidata_version,
        "lower": lower,
        "case_ignorable": ranges(ign),
        "cased_not_ignorable": ranges(cased),
        "space": space,
        "assigned": ranges(assigned),
    }


def run_cli(src, version, hyp, ref):
    """sacreBLEU's command line on the files, in a child process (its main()
    reopens stdout), with the same stubs."""
    import subprocess
    out = subprocess.run(
        [sys.executable, __file__, "--src", src, "--version", version,
         "--cli", ref, "-i", hyp, "-m", "ter"],
        check=True, capture_output=True, text=True)
    return out.stdout.strip()


def main():
    if "--cli" in sys.argv:
        k = sys.argv.index("--cli")
        opts = dict(zip(sys.argv[1:k:2], sys.argv[2:k:2]))
        load_sacrebleu(opts["--src"], opts["--version"])
        from sacrebleu import sacrebleu as cli
        sys.argv = ["sacrebleu"] + sys.argv[k + 1:]
        cli.main()
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    TER, lib_ter = load_sacrebleu(args.src, args.version)
    source = (f"mjpost/sacrebleu @ {args.commit} (tag v{args.version} + a README "
              f"commit; Apache-2.0), run from source (--src: the output of `git archive "
              f"{args.commit} sacrebleu | tar -x`) with Python {sys.version.split()[0]} "
              f"by metric/testdata/sacrebleu_ter.py, which stubs the modules TER does "
              f"not use (see its doc string)")
    command = " ".join(["python3", "metric/testdata/sacrebleu_ter.py"] + sys.argv[1:])

    hyp_file = os.path.join(args.data, "newstest-2015-100sents.en-ru.google.ru")
    ref_file = os.path.join(args.data, "newstest-2015-100sents.en-ru.ref.ru")
    tok_ref_file = os.path.join(args.data, "ref.ru")
    hyps, refs = read_lines(hyp_file), read_lines(ref_file)
    tok_refs = read_lines(tok_ref_file)[: len(refs)]
    synth = synthetic_hyps(refs, hyps)

    H, R, T = (os.path.basename(f) for f in (hyp_file, ref_file, tok_ref_file))
    cases = []
    for kw in OPTION_SETS:
        name = "google-vs-ref" + "".join(f"/{k}" for k in sorted(kw))
        cases.append(corpus_case(TER, name, hyps, [refs], kw, H, [R]))
    cases.append(corpus_case(TER, "google-vs-ref+ref.tok", hyps, [refs, tok_refs], {}, H, [R, T]))
    cases.append(corpus_case(TER, "synthetic-vs-ref+google", synth, [refs, hyps], {},
                             "synthetic_hyps", [R, H]))
    cases.append(corpus_case(TER, "synthetic-vs-ref+google/case_sensitive", synth,
                             [refs, hyps], {"case_sensitive": True}, "synthetic_hyps", [R, H]))
    wmt = {
        "source": source,
        "command": command,
        "data": "bleu/wmt15-en-ru-100 of ../shared/data: hypotheses "
                "newstest-2015-100sents.en-ru.google.ru; references "
                "newstest-2015-100sents.en-ru.ref.ru (and ref.ru, its Moses-"
                "tokenised copy, as a second reference in 'google-vs-ref+ref.tok')",
        "cli": {"command": "sacrebleu newstest-2015-100sents.en-ru.ref.ru -i "
                           "newstest-2015-100sents.en-ru.google.ru -m ter",
                "output": run_cli(args.src, args.version, hyp_file, ref_file)},
        "cases": cases,
    }
    rnd = {
        "source": source,
        "command": command,
        "note": "lib_ter.translation_edit_rate(hyp.split(), ref.split()) on random "
                "token sequences (random.Random(20240611)); the words are lower-case "
                "ASCII, so TER() with any options tokenises them unchanged",
        "cases": random_pairs(lib_ter, 20240611),
    }
    tok = {
        "source": source,
        "command": command,
        "note": "TER(**kwargs)._preprocess_segment(input): rstrip, then TercomTokenizer",
        "sets": tokenizer_vectors(TER),
    }
    uni = dict(python_unicode(), source=source, command=command)
    for name, obj in (("sacrebleu-ter-wmt15.json", wmt), ("sacrebleu-ter-random.json", rnd),
                      ("sacrebleu-ter-tokenizer.json", tok), ("python-unicode.json", uni)):
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=None if name == "python-unicode.json" else 1)
            f.write("\n")


if __name__ == "__main__":
    main()
