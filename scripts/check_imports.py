#!/usr/bin/env python3
"""Every module a target imports is declared as its dependency in Package.swift, and every
dependency a target declares is imported by it.

SwiftPM's `--explicit-target-dependency-import-check=error` (which `make test` also passes)
diagnoses nothing on Linux with Swift 6.3.1: a target importing a module it reaches only
transitively still builds. This check reads the manifest (`swift package dump-package`) and
every target's `import` lines, and fails naming the target and the module. The system's own
modules (Foundation, Glibc, Dispatch, Testing, ...) need no declaration.

The other way round, a declared dependency that no file of the target imports is a failure too:
it links what the target does not use and makes the manifest say a module may reach another when
it does not (docs/ARCHITECTURE.md is generated from these lists). C modules count like any other:
a system-library target such as `CZlib` or `CMallocPolicy` is used through `internal import CZlib`
or `import CMallocPolicy`, and its library is linked only through that import (the module map's
`link`), so an unimported one does nothing. A product counts as imported when one of its modules
is (its modules are read from the dependency's checkout when the product's name is not imported
itself). A dependency kept for another reason (a product needed only for linking, say) goes in
`KEPT_UNUSED` with that reason.

Usage: check_imports.py [PACKAGE_ROOT]
"""
import glob
import json
import os
import re
import subprocess
import sys

# (target, dependency) -> why it stays declared though no file of the target imports it.
KEPT_UNUSED: dict[tuple[str, str], str] = {}

SYSTEM = {
    'Foundation', 'Glibc', 'Musl', 'Darwin', 'Dispatch', 'FoundationNetworking', 'Testing', 'Synchronization',
    'XCTest', 'FoundationEssentials', '_Concurrency',
}
IMPORT = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:internal|package|public|private|fileprivate)\s+)?import\s+'
    r'(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)', re.M)


def declared(dependency):
    """(kind, name, package) of one entry of a target's `dependencies` in the dump, whatever its shape:
    {"byName": [name, condition]}, {"target": [name, condition]}, {"product": [name, package, aliases, condition]}."""
    for kind in ('byName', 'target', 'product'):
        if kind in dependency:
            fields = dependency[kind]
            return kind, fields[0], (fields[1] if kind == 'product' else None)
    raise SystemExit(f'check_imports.py: a dependency of a shape this script does not know: {dependency}')


_product_modules = {}


def product_modules(name, package):
    """The modules of product `name` of `package`, read from its checkout; {name} when there is none."""
    key = (name, package)
    if key not in _product_modules:
        modules = {name}
        checkouts = glob.glob('.build/checkouts/*')
        match = [c for c in checkouts if package and os.path.basename(c).lower() == package.lower()]
        if match:
            try:
                dump = json.loads(subprocess.check_output(
                    ['swift', 'package', '--package-path', match[0], 'dump-package'], stderr=subprocess.DEVNULL))
                for product in dump['products']:
                    if product['name'] == name:
                        modules |= {t.replace('-', '_') for t in product['targets']}
            except (subprocess.CalledProcessError, ValueError, KeyError):
                pass
        _product_modules[key] = modules
    return _product_modules[key]


def imports_of(path):
    """file -> the modules it imports, for every Swift file under `path` (multi-line strings skipped)."""
    found = {}
    for f in sorted(glob.glob(path + '/**/*.swift', recursive=True)):
        text = re.sub(r'"""(.*?)"""', '', open(f).read(), flags=re.S)
        found[f] = {m.group(1) for m in IMPORT.finditer(text)}
    return found


def main():
    os.chdir(sys.argv[1] if len(sys.argv) > 1 else '.')
    run = subprocess.run(['swift', 'package', 'dump-package'], capture_output=True, text=True)
    if run.returncode != 0:
        print('check_imports.py: `swift package dump-package` failed (is Package.swift valid?):\n' + run.stderr.strip())
        return 2
    dump = json.loads(run.stdout)
    bad = 0
    for t in dump['targets']:
        if t['type'] in ('system', 'binary', 'plugin', 'macro'):
            continue
        name = t['name']
        path = t.get('path') or (('Tests/' if t['type'] == 'test' else 'Sources/') + name)
        deps = [declared(d) for d in t['dependencies']]
        names = {n for _, n, _ in deps}
        mods = set().union(*imports_of(path).values())
        mods -= SYSTEM
        mods -= {name, name.replace('-', '_')}

        missing = sorted(m for m in mods - names
                         if not any(k == 'product' and m in product_modules(n, p) for k, n, p in deps))
        if missing:
            print(f"{path}: target '{name}' imports {', '.join(missing)} but Package.swift does not declare "
                  + ('it' if len(missing) == 1 else 'them') + " among its dependencies")
            bad = 1

        unused = []
        for kind, dep, package in deps:
            if (name, dep) in KEPT_UNUSED or dep in mods:
                continue
            if kind == 'product' and mods & product_modules(dep, package):
                continue
            unused.append(f"{dep} (product of {package})" if kind == 'product' else dep)
        if unused:
            print(f"Package.swift: target '{name}' declares {', '.join(unused)} but no file in {path} imports "
                  + ('it' if len(unused) == 1 else 'them') + f"; remove {'it' if len(unused) == 1 else 'them'}"
                  + f" from the dependencies of '{name}' in Package.swift (or, if it is needed without an import,"
                  + " add it to KEPT_UNUSED in scripts/check_imports.py with the reason)")
            bad = 1
    if not bad:
        print('imports: every target declares what it imports, and imports what it declares')
    return bad


if __name__ == '__main__':
    sys.exit(main())
