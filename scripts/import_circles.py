"""Import circles between the files of each crate (issue 28's count).

    python3 scripts/import_circles.py crates/*          # circles between sibling files
    ALL=1 python3 scripts/import_circles.py crates/*    # also through parent modules
    CYC=-v python3 scripts/import_circles.py crates/x   # which names make each edge

An edge F -> G when file F names an item defined in file G (`use` paths and inline `a::b::c`
paths, following re-exports; a `pub use` itself is a name, not a dependency). By default edges
between a module and its ancestors are left out: a child using its parent's types and a parent
calling its children is the layout of every crate (front end above cpu.rs and cuda/). A circle
is a strongly connected set of files. The parsing is textual (comments and strings stripped,
no macro expansion), good enough for this tree; it is a review aid, not a CI gate.
"""
import os, re, sys
from collections import defaultdict

def modfiles(src):
    mods = {}
    for dp, _, fs in os.walk(src):
        for f in fs:
            if not f.endswith('.rs'): continue
            p = os.path.join(dp, f); rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ('mod', 'lib', 'main'): rel = rel[:-1]
            mods[tuple(rel)] = p
    return mods

def strip(s):
    s = re.sub(r'//[^\n]*', '', s)
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
    return s

def uses(s):
    """(is_reexport, [path tuples]) for each use statement."""
    out = []
    for m in re.finditer(r'(?<![\w])(pub(?:\([a-z]+\))?\s+)?\buse\s+([^;]+);', s):
        pub = bool(m.group(1)); body = re.sub(r'\s+', '', re.sub(r'\s+as\s+', '@', m.group(2)))
        out.append((pub, expand(body)))
    return out

def expand(body):
    # split a::{b,c::{d,e}} into paths
    i = body.find('{')
    if i < 0:
        return [tuple(x for x in body.split('::') if x)]
    pre = body[:i]; inner = body[i+1:body.rfind('}')]
    parts, depth, cur = [], 0, ''
    for ch in inner:
        if ch == ',' and depth == 0: parts.append(cur); cur = ''; continue
        depth += ch == '{'; depth -= ch == '}'; cur += ch
    if cur: parts.append(cur)
    res = []
    for p in parts:
        for q in expand(p):
            res.append(tuple(x for x in pre.split('::') if x) + q)
    return res

def crate_graph(src):
    mods = modfiles(src)
    MODS.clear(); MODS.update(mods)
    texts = {m: strip(open(p).read()) for m, p in mods.items()}
    reexp = defaultdict(dict)  # module -> name -> full path
    for m, s in texts.items():
        for pub, paths in uses(s):
            if not pub: continue
            for p in paths:
                nm = p[-1].split('@')
                ap = absol(m, p[:-1] + (nm[0],))
                if ap and ap[-1] != '*': reexp[m][nm[-1]] = ap
    def resolve(ap, depth=0):
        # longest module prefix
        for k in range(len(ap) - 1, -1, -1):
            mod = ap[:k]
            if mod in mods:
                rest = ap[k:]
                if not rest: return None
                if mod + rest[:1] in mods: return None
                name = rest[0]
                if name in reexp[mod] and depth < 10 and reexp[mod][name] != ap:
                    r = resolve(reexp[mod][name], depth + 1)
                    return r if r else mod
                return mod
        return None
    edges = defaultdict(set)
    for m, s in texts.items():
        paths = []
        for pub, ps in uses(s):
            if pub:
                continue  # a re-export is a name, not a dependency
            paths += [p[:-1] + (p[-1].split('@')[0],) for p in ps]
        alias = {}
        for pub, ps in uses(s):
            for p in ps:
                nm = p[-1].split('@')
                p = p[:-1] + (nm[0],)
                ap = absol(m, p)
                if ap and ap in mods: alias[nm[-1]] = ap
        body = re.sub(r'(?<![\w])(pub(?:\([a-z]+\))?\s+)?\buse\s+[^;]+;', '', s)
        for mm in re.finditer(r'(?<![:\w])(\w+(?:::\w+)+)', body):
            p = tuple(mm.group(1).split('::'))
            if p[0] in alias and tuple(m) + (p[0],) not in mods:
                p = ('crate',) + alias[p[0]] + p[1:]
            paths.append(p)
        for p in paths:
            ap = absol(m, p)
            if not ap: continue
            t = resolve(ap)
            if t is not None and t != m:
                edges[m].add(t)
                WHY.setdefault((m, t), set()).add('::'.join(ap[len(t):]) or '::'.join(ap))
    return mods, edges

MODS = set()
WHY = {}
def absol(m, p):
    if not p: return None
    p = list(p)
    if tuple(m) + (p[0],) in MODS: return tuple(m) + tuple(p)
    if p[0] == 'crate': return tuple(p[1:])
    base = list(m)
    if p[0] == 'self': return tuple(base + p[1:])
    if p[0] == 'super':
        while p and p[0] == 'super':
            if not base: return None
            base.pop(); p.pop(0)
        return tuple(base + p)
    return None  # external crate

def cycles(edges):
    idx, low, st, on, res, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: res.append(comp)
    for v in list(edges): 
        if v not in idx: sc(v)
    return res

for crate in sys.argv[1:]:
    mods, edges = crate_graph(os.path.join(crate, 'src'))
    if not os.environ.get('ALL'):
        # only edges between files of which neither is the other's ancestor
        edges = {a: {b for b in bs if not (a[:len(b)] == b or b[:len(a)] == a)} for a, bs in edges.items()}
    cs = cycles(edges)
    print(f"{crate}: {len(mods)} files, {sum(len(v) for v in edges.values())} edges, {len(cs)} cycles")
    for c in cs:
        print('   ', ' '.join('::'.join(x) or 'lib' for x in sorted(c)))
        if '-v' in os.environ.get('CYC', ''):
            for a in c:
                print('      ', '::'.join(a) or 'lib', '->', {'::'.join(b) or 'lib': sorted(WHY.get((a, b), ()))[:6] for b in edges[a] if b in c})
