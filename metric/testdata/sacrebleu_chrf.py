#!/usr/bin/env python3
"""Computes the chrF/chrF++ expectations of metric's chrF tests with sacreBLEU.

Usage (from the repository root):

    git --git-dir=<sacrebleu mirror> archive <commit> | tar -x -C <src>
    python3 metric/testdata/sacrebleu_chrf.py <src> <commit> ../shared/data metric/testdata [wmt17-txt-dir]

It writes, into the output folder:

  sacrebleu-chrf-vectors.json    sacreBLEU's own chrF test vectors (test/test_chrf.py,
                                 read from <src>; test.sh's, typed in below), each with
                                 the full-precision score sacreBLEU computes for it
                                 (test.sh's need WMT17 system outputs: the score is
                                 null unless wmt17-txt-dir holds them);
  sacrebleu-chrf-wmt15.json      corpus chrF2 and chrF2++ of the wmt15-en-ru-100 Google
                                 output, with each sentence's statistics and score;
  sacrebleu-chrf-generated.json  edge cases (empty, white space, non-ASCII, punctuation,
                                 case, several references, ties, other settings), inline
                                 or on files of the shared data.

PyPI is unreachable where this was run, so sacreBLEU runs from its source with
stubs for what chrF never calls: portalocker (test-set download lock) and
tabulate (CLI tables) are imported by sacrebleu/utils.py, lxml by the WMT XML
test-set reader; sacrebleu/version.py is written by setuptools_scm at build
time, so it is stubbed with the release the source is (2.6.0). The stubs are
empty modules: calling into them would fail, and chrF does not.
"""

import json
import os
import re
import sys
import types

SRC, COMMIT, DATA, OUT = sys.argv[1:5]
WMT17 = sys.argv[5] if len(sys.argv) > 5 else None
VERSION = "2.6.0"

for name in ("portalocker", "tabulate", "lxml", "lxml.etree", "pytest"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["lxml"].etree = sys.modules["lxml.etree"]
sys.modules["tabulate"].tabulate = None
sys.modules["pytest"].mark = types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f))
version = types.ModuleType("sacrebleu.version")
version.__version__ = VERSION
sys.modules["sacrebleu.version"] = version
sys.path.insert(0, SRC)

import sacrebleu  # noqa: E402
from sacrebleu.metrics.chrf import CHRF  # noqa: E402

SOURCE = {
    "repository": "mjpost/sacrebleu",
    "commit": COMMIT,
    "version": VERSION,
    "license": "Apache-2.0",
    "files": ["sacrebleu/metrics/chrf.py", "sacrebleu/metrics/helpers.py", "sacrebleu/metrics/base.py", "sacrebleu/compat.py"],
}
COMMAND = "python3 metric/testdata/sacrebleu_chrf.py " + " ".join(sys.argv[1:])
STUBS = ("sacreBLEU run from source (python3 %s): portalocker, tabulate, lxml stubbed as empty modules "
         "(not used by chrF), sacrebleu.version stubbed as %s (setuptools_scm writes it at build time)"
         % (sys.version.split()[0], VERSION))


def settings(c):
    return {"char_order": c.char_order, "word_order": c.word_order, "beta": c.beta,
            "lowercase": c.lowercase, "whitespace": c.whitespace, "eps_smoothing": c.eps_smoothing}


def metric(s):
    return CHRF(char_order=s.get("char_order", 6), word_order=s.get("word_order", 0),
                beta=s.get("beta", 2), lowercase=s.get("lowercase", False),
                whitespace=s.get("whitespace", False), eps_smoothing=s.get("eps_smoothing", False))


def read_lines(path):
    # as sacreBLEU's command line reads a file: UTF-8, line.rstrip()
    with open(path, encoding="utf-8") as f:
        return [line.rstrip() for line in f]


def evaluate(c, hyps, refs):
    """refs are reference streams, refs[k][i] the k-th reference of sentence i."""
    stats = c._extract_corpus_statistics(hyps, refs)
    corpus = c.corpus_score(hyps, refs)
    sig = str(c.get_signature())
    return {
        "settings": settings(c),
        "name": corpus.name,
        "signature": sig,
        "printed": corpus.format(signature=sig),
        "corpus_score": corpus.score,
        "stats": stats,
        "sentence_scores": [c.sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(hyps)],
    }


def dump(name, obj):
    text = json.dumps(obj, ensure_ascii=False, indent=1)
    # one line for each list of numbers (a sentence's statistics, a list of scores)
    text = re.sub(r"\[\s+([-0-9.e+,\s]+?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write(text + "\n")


# --- sacrebleu-chrf-vectors.json: sacreBLEU's own tests -------------------

ns = {}
with open(os.path.join(SRC, "test", "test_chrf.py"), encoding="utf-8") as f:
    exec(f.read(), ns)

# test function -> the keyword arguments it passes to sacrebleu.corpus_chrf / sentence_chrf
CALLS = [
    ("test_cases", "test_chrf", dict(char_order=6, word_order=0, beta=3, eps_smoothing=True)),
    ("test_cases_effective_order", "test_chrf_eff_order", dict(char_order=6, word_order=0, beta=3, eps_smoothing=False)),
    ("test_cases_keep_whitespace", "test_chrf_keep_whitespace", dict(char_order=6, word_order=0, beta=3, remove_whitespace=False)),
]
corpus = []
for table, test, kw in CALLS:
    for hyps, refs, expected in ns[table]:
        got = sacrebleu.corpus_chrf(hyps, [refs], **kw).score
        s = dict(kw)
        if "remove_whitespace" in s:
            s["whitespace"] = not s.pop("remove_whitespace")
        corpus.append({"test": test, "table": table, "kwargs": kw, "settings": s,
                       "hyps": hyps, "refs": [refs], "expected": expected, "sacrebleu_score": got})
sentence = []
for hyp, refs, expected in ns["test_sentence_level_chrf"]:
    got = sacrebleu.sentence_chrf(hyp, refs, eps_smoothing=True).score
    sentence.append({"test": "test_chrf_sentence_level", "table": "test_sentence_level_chrf",
                     "kwargs": {"eps_smoothing": True}, "settings": {"eps_smoothing": True},
                     "hyp": hyp, "refs": refs, "expected": expected, "sacrebleu_score": got})

# test.sh, typed in from the file: printed with -w 4, compared within 1e-6 (i.e. all 4 digits).
P = "system-outputs/newstest2017/"
CSEN_REFS = [P + "cs-en/newstest2017.online-A.0.cs-en", P + "cs-en/newstest2017.online-B.0.cs-en"]
CSEN_SYS = P + "cs-en/newstest2017.PJATK.4760.cs-en"
test_sh = [
    {"block": "BLEU/CHRF regression tests", "command": "-m chrf --chrf-eps-smoothing -w 4 -b -l cs-en $ref1 $ref2 -i $sys",
     "settings": {"eps_smoothing": True}, "hyp": CSEN_SYS, "refs": CSEN_REFS, "expected": "67.8596"},
    {"block": "BLEU/CHRF regression tests", "command": "-m chrf -w 4 -b -l cs-en $ref1 $ref2 -i $sys",
     "settings": {}, "hyp": CSEN_SYS, "refs": CSEN_REFS, "expected": "67.8603"},
    {"block": "BLEU/CHRF regression tests", "command": "-m chrf -cw 2 -w 4 -b -l cs-en $ref1 $ref2 -i $sys",
     "settings": {"word_order": 2}, "hyp": CSEN_SYS, "refs": CSEN_REFS, "expected": "66.1016"},
]
CHRF_SH = {  # name: (chrF++.py -nw 0, chrF++.py)
    "newstest2017.PJATK.4760.cs-en": ("52.5947", "50.2947"),
    "newstest2017.online-A.0.cs-en": ("53.3856", "51.1037"),
    "newstest2017.CU-Chimera.4886.en-cs": ("48.3370", "45.6732"),
    "newstest2017.LIUM-FNMT.4852.en-cs": ("48.4708", "45.7210"),
    "newstest2017.C-3MA.4959.en-de": ("51.9533", "49.1683"),
    "newstest2017.FBK.4870.en-de": ("54.7152", "52.2330"),
    "newstest2017.AaltoHnmtFlatcat.4798.en-fi": ("50.5981", "46.6295"),
    "newstest2017.online-A.0.en-fi": ("49.5458", "44.9147"),
    "newstest2017.limsi-factored-norm.5041.en-lv": ("49.3634", "45.7117"),
    "newstest2017.online-A.0.en-lv": ("45.2101", "40.8963"),
    "newstest2017.jhu-pbmt.4986.en-ru": ("54.9569", "52.0154"),
    "newstest2017.online-B.0.en-ru": ("60.4059", "57.6404"),
    "newstest2017.LIUM-NMT.4953.en-tr": ("47.5881", "43.8311"),
    "newstest2017.online-G.0.en-tr": ("48.7404", "44.6236"),
    "newstest2017.UU-HNMT.5134.en-zh": ("22.6844", "17.0181"),
    "newstest2017.online-F.0.en-zh": ("18.7403", "14.1572"),
}
for name, (chrf, chrfpp) in CHRF_SH.items():
    pair = name.rsplit(".", 1)[1]
    src, tgt = pair.split("-")
    ref = "references/newstest2017-%s%s-ref.%s" % (src, tgt, tgt)
    for expected, s, cmd in ((chrf, {"eps_smoothing": True}, "--metrics chrf --chrf-eps-smoothing"),
                             (chrfpp, {"eps_smoothing": True, "word_order": 2}, "--metrics chrf --chrf-word-order 2 --chrf-eps-smoothing")):
        test_sh.append({"block": "chrF and chrF++ tests (expected: chrF++.py, the official implementation)",
                        "command": "cat %s | sacrebleu -w 4 -t wmt17 -l %s -b %s" % (name, pair, cmd),
                        "settings": s, "hyp": P + pair + "/" + name, "refs": [ref], "expected": expected})
for v in test_sh:
    v["sacrebleu_score"] = None
    if WMT17 and all(os.path.exists(os.path.join(WMT17, p)) for p in [v["hyp"]] + v["refs"]):
        hyps = read_lines(os.path.join(WMT17, v["hyp"]))
        refs = [read_lines(os.path.join(WMT17, p)) for p in v["refs"]]
        v["sacrebleu_score"] = metric(v["settings"]).corpus_score(hyps, refs).score

dump("sacrebleu-chrf-vectors.json", {
    "source": "mjpost/sacrebleu @ %s (Apache-2.0): test/test_chrf.py (read by the script) and test.sh "
              "(typed in), transcribed by metric/testdata/sacrebleu_chrf.py" % COMMIT,
    "sacrebleu": SOURCE,
    "command": COMMAND,
    "how_run": STUBS,
    "conventions": {
        "refs": "corpus_chrf: refs is a list of reference STREAMS (refs[k][i] = k-th reference of sentence i); "
                "sentence_chrf: refs is the sentence's references",
        "settings": "ChrF fields, sacreBLEU's defaults where absent: char_order 6, word_order 0, beta 2, "
                    "lowercase false, whitespace false (remove_whitespace=True), eps_smoothing false",
        "expected": "the value sacreBLEU's test asserts: test_chrf.py within EPSILON = 1e-4 (absolute, score x 100); "
                    "test.sh: the score printed with -w 4 (a string), compared within 1e-6, i.e. to the 4 digits",
        "sacrebleu_score": "the full-precision score sacreBLEU computes at this commit (null: data not at hand; "
                           "test.sh's data is wmt17-submitted-data/txt from data.statmt.org, paths relative to it)",
    },
    "test_chrf_py_epsilon": ns["EPSILON"],
    "corpus_chrf": corpus,
    "sentence_chrf": sentence,
    "test_sh": test_sh,
})

# --- sacrebleu-chrf-wmt15.json --------------------------------------------

W = "bleu/wmt15-en-ru-100/"
HYP, REF = W + "newstest-2015-100sents.en-ru.google.ru", W + "newstest-2015-100sents.en-ru.ref.ru"
hyps = read_lines(os.path.join(DATA, HYP))
refs = [read_lines(os.path.join(DATA, REF))]
dump("sacrebleu-chrf-wmt15.json", {
    "source": "corpus and sentence chrF of the shared data's wmt15-en-ru-100 computed with sacreBLEU %s "
              "(mjpost/sacrebleu @ %s) by metric/testdata/sacrebleu_chrf.py" % (VERSION, COMMIT),
    "sacrebleu": SOURCE,
    "command": COMMAND,
    "how_run": STUBS,
    "hypothesis": HYP,
    "reference": REF,
    "read_as": "UTF-8 lines, line.rstrip(), as sacreBLEU's command line reads files",
    "calls": "CHRF(...).corpus_score(hyps, [refs]); CHRF(...)._extract_corpus_statistics(hyps, [refs]); "
             "CHRF(...).sentence_score(hyp, [ref]) per sentence",
    "chrF": evaluate(CHRF(), hyps, refs),
    "chrF++": evaluate(CHRF(word_order=2), hyps, refs),
})

# --- sacrebleu-chrf-generated.json ----------------------------------------

INLINE = [
    ("empty hypothesis", [""], [["a reference"]]),
    ("empty reference", ["a hypothesis"], [[""]]),
    ("both empty", [""], [[""]]),
    ("white-space-only hypothesis", [" \t\u3000 "], [["ref text"]]),
    ("white-space-only reference", ["hyp text"], [[" \u00a0\x1c "]]),
    ("Python white space", ["a\x1cb\u2003c\u00a0d\u2028e f\u200bg"], [["a b c d e f g"]]),
    ("reference shorter than the orders", ["abcdefgh ijk"], [["abc"]]),
    ("hypothesis shorter than the orders", ["ab"], [["abcdefgh ij kl"]]),
    ("repeated n-grams clipped", ["aaaa aaaa aa"], [["aa aaa"]]),
    ("Cyrillic", ["Кошка сидела на ковре."], [["Кот сидел на коврике."]]),
    ("CJK", ["我们今天去公园散步。"], [["今天我们在公园里散步。"]]),
    ("astral and combining", ["👍🏽 ok e\u0301te\u0301 𝒜𝒷𝒸"], [["👍 ok été 𝒜𝒷"]]),
    ("punctuation", ['(hi) there, friend. ...ok "quoted" a - b ,x .'], [["(hi there) , friend . ok quoted a-b x."]]),
    ("case", ["The Cat SAT on the Mat"], [["the cat sat on the mat"]]),
    ("several sentences", ["the cat sat on the mat .", "", "a dog", "Привет, мир!"],
     [["the cat is on the mat .", "nothing", "", "Привет мир"]]),
    ("several references: best is the second", ["the cat sat"], [["a dog ran"], ["the cat sat down"], ["the cat"]]),
    ("several references: ties go to the first", ["a", "xyz"], [["b", "xyz"], ["cc", "xyz"]]),
    ("several references: ties go to the first (swapped)", ["a", "xyz"], [["cc", "xyz"], ["b", "xyz"]]),
    ("several references: empty and white-space ones", ["some text here", "x"], [["", "x"], ["  ", "y"], ["some text", ""]]),
    ("lower-casing: dotted I and final sigma", ["İstanbul ΟΔΥΣΣΕΥΣ Σ ΣΑ Α'Σ ΑΣ.Α ΑΣ'"],
     [["istanbul οδυσσευς σ σα α'σ ας.α ας'"]]),
]
SETTINGS = [
    ("chrF", {}),
    ("chrF++", {"word_order": 2}),
]
EXTRA_SETTINGS = [
    ("chrF lowercase", {"lowercase": True}),
    ("chrF++ lowercase", {"word_order": 2, "lowercase": True}),
    ("chrF whitespace", {"whitespace": True}),
    ("chrF++ whitespace", {"word_order": 2, "whitespace": True}),
    ("chrF eps", {"eps_smoothing": True}),
    ("chrF++ eps", {"word_order": 2, "eps_smoothing": True}),
    ("beta 1", {"beta": 1, "word_order": 2}),
    ("beta 3", {"beta": 3}),
    ("beta 0", {"beta": 0, "word_order": 1}),
    ("char 4 word 1", {"char_order": 4, "word_order": 1}),
    ("words only", {"char_order": 0, "word_order": 2}),
    ("char 8", {"char_order": 8}),
]
cases = []
for name, hyps, refs in INLINE:
    for sname, s in SETTINGS + EXTRA_SETTINGS:
        if sname not in ("chrF", "chrF++") and name not in (
                "several sentences", "punctuation", "case", "white-space-only reference", "Python white space",
                "lower-casing: dotted I and final sigma", "several references: best is the second",
                "reference shorter than the orders", "empty hypothesis"):
            continue
        case = {"case": name + " / " + sname, "hyps": hyps, "refs": refs}
        case.update(evaluate(metric(s), hyps, refs))
        cases.append(case)

# several references on the shared data: cdec's four references of five sentences, each in turn the
# hypothesis against the other three; wmt15's reference, plain and Moses-tokenised, as two references
FILES = []
C = "bleu/cdec/test_data/re.txt."
for k in range(4):
    FILES.append(("cdec re.txt.%d against the others" % k, C + str(k), [C + str(j) for j in range(4) if j != k]))
FILES.append(("wmt15 Google against the reference and its tokenised form", HYP, [W + "ref.ru", REF]))
for name, hf, rfs in FILES:
    hyps = read_lines(os.path.join(DATA, hf))
    refs = [read_lines(os.path.join(DATA, r)) for r in rfs]
    for sname, s in SETTINGS + [("chrF++ lowercase", {"word_order": 2, "lowercase": True})]:
        case = {"case": name + " / " + sname, "hyp_file": hf, "ref_files": rfs}
        case.update(evaluate(metric(s), hyps, refs))
        cases.append(case)

dump("sacrebleu-chrf-generated.json", {
    "source": "edge cases computed with sacreBLEU %s (mjpost/sacrebleu @ %s) by metric/testdata/sacrebleu_chrf.py"
              % (VERSION, COMMIT),
    "sacrebleu": SOURCE,
    "command": COMMAND,
    "how_run": STUBS,
    "conventions": {
        "refs": "reference STREAMS: refs[k][i] is the k-th reference of sentence i (files: ref_files[k], "
                "paths relative to the shared data, read as UTF-8 lines with line.rstrip())",
        "stats": "per sentence, CHRF._extract_corpus_statistics: [hyp, ref, match] per order, character orders then word orders",
        "sentence_scores": "CHRF.sentence_score(hyp, [refs of the sentence]).score",
        "corpus_score": "CHRF.corpus_score(hyps, refs).score",
    },
    "cases": cases,
})
