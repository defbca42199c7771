#!/usr/bin/env python3
"""Every module a target imports is declared as its dependency in Package.swift.

SwiftPM's `--explicit-target-dependency-import-check=error` (which `make test` also passes)
diagnoses nothing on Linux with Swift 6.3.1: a target importing a module it reaches only
transitively still builds. This check reads the manifest (`swift package dump-package`) and
every target's `import` lines, and fails naming the target and the module. The system's own
modules (Foundation, Glibc, Dispatch, Testing, ...) need no declaration.
"""
import re, os, glob, json, subprocess, sys
root=sys.argv[1] if len(sys.argv)>1 else '.'
os.chdir(root)
dump=json.loads(subprocess.check_output(['swift','package','dump-package'],stderr=subprocess.DEVNULL))
system={'Foundation','Glibc','Musl','Darwin','Dispatch','FoundationNetworking','Testing','Synchronization','XCTest','FoundationEssentials','_Concurrency'}
bad=0
for t in dump['targets']:
    name=t['name']
    path=t.get('path') or (('Tests/' if t['type']=='test' else 'Sources/')+name)
    deps=set()
    for d in t['dependencies']:
        for k in ('byName','target','product'):
            if k in d: deps.add(d[k][0])
    mods=set()
    for f in glob.glob(path+'/**/*.swift',recursive=True):
        txt=open(f).read()
        txt=re.sub(r'"""(.*?)"""','',txt,flags=re.S)
        for m in re.finditer(r'^\s*(?:@_spi\(\w+\)\s*)?(?:@testable\s+)?(?:(?:internal|package|public|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|protocol|typealias)\s+)?(\w+)', txt, re.M):
            mods.add(m.group(1))
    mods-=system; mods.discard(name)
    missing=sorted(mods-deps)
    if missing:
        print(f"{path}: target '{name}' imports {', '.join(missing)} but Package.swift does not declare " + ('it' if len(missing) == 1 else 'them') + " among its dependencies")
        bad = 1
if not bad:
    print('imports: every target declares what it imports')
sys.exit(bad)
