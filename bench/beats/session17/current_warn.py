import os, sys, types
# The shipped warning model's verdict (probability >= 0.29, the other warnings, faint hearing < 0.2) on the dumps of `warning-fit dump --out bench/out/l17/doubt` (session 17).
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, REPO)
sys.argv=["x"]
import importlib.util
spec = importlib.util.spec_from_file_location("wf", os.path.join(REPO, "bench/beats/warning_fit.py"))
wf = importlib.util.module_from_spec(spec); spec.loader.exec_module(wf)
args = types.SimpleNamespace(out=os.path.join(REPO, "bench/out/l17/doubt"), real_labels="bench")
tot=[0,0,0]
for name in wf.TUNE + wf.HELD:
    rows = wf.load(args, name)
    poor = sum(r[1] for r in rows)
    warned = [(r[0]["probability"] >= 0.29) or r[2] or (wf.faint_input(r[0]) < 0.2) for r in rows]
    pw = sum(1 for r, w in zip(rows, warned) if w and r[1])
    print(f"{name}: current model {pw} of {poor} poor warned, {pw} of {sum(warned)} warnings right")
