#!/usr/bin/env python3
"""Builds trailpack's Debian package from a built program: `make deb` runs it on `make release`'s.

    scripts/make_deb.py --binary .build/release/trailpack [--version 0.1.0-1] [--out out/deb]

It stages the installed tree and builds it with `dpkg-deb` (no debian/ source tree: the program is
built by SwiftPM, not by Debian's build helpers), doing by hand what debhelper would:

  /usr/bin/trailpack                               the program, stripped (dh_strip)
  /usr/share/man/man1/trailpack*.1.gz              one page per command, from the argument parser
                                                   (swift-argument-parser's generate-manual)
  /usr/share/bash-completion/completions/trailpack, /usr/share/zsh/vendor-completions/_trailpack,
  /usr/share/fish/vendor_completions.d/trailpack.fish   (trailpack --generate-completion-script)
  /lib/systemd/system/trailpack.service, /etc/trailpack/serve.conf (a conffile)
  /usr/share/doc/trailpack/{copyright,changelog.Debian.gz,README.Debian}
  DEBIAN/{control,conffiles,md5sums,postinst,prerm,postrm}

Depends is what dpkg-shlibdeps finds the program loads (libarchive, libssl, zlib, libdeflate,
libcurl, libc), plus the Debian web libraries it serves (libjs-leaflet, libjs-bootstrap5) and
adduser. Prints the package's path. Packaging files: packaging/debian/.
"""
import argparse
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGING = os.path.join(ROOT, "packaging", "debian")


# Who the package says made it: DEBFULLNAME and DEBEMAIL, as Debian's own tools read them.
MAINTAINER = "%s <%s>" % (os.environ.get("DEBFULLNAME") or "trailpack developers",
                          os.environ.get("DEBEMAIL") or "maintainers@trailpack.example.org")


def run(argv, **kw):
    """Runs a program; its failure ends the build with its words, not a traceback."""
    try:
        return subprocess.run(argv, check=True, **kw)
    except subprocess.CalledProcessError as error:
        said = error.stderr if isinstance(error.stderr, str) else (error.stderr or b"").decode("utf-8", "replace")
        fail("%s exited with %d%s" % (" ".join(argv), error.returncode, ": " + said.strip() if said else ""))
    except OSError as error:
        fail("cannot run %s: %s" % (argv[0], error))


def fail(message):
    print("make_deb: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/trailpack"))
    parser.add_argument("--version", help="the package's version (default: the program's, with Debian revision 1)")
    parser.add_argument("--out", default=os.path.join(ROOT, "out/deb"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    args.out = os.path.abspath(args.out)  # the programs below run in other folders
    if not os.access(binary, os.X_OK):
        fail("%s is not a built program: run make release first" % binary)
    for tool in ["dpkg-deb", "dpkg-shlibdeps", "strip"]:
        if not shutil.which(tool):
            fail("%s is missing (Debian package %s)" % (tool, "binutils" if tool == "strip" else "dpkg-dev"))
    said = run([binary, "--version"], capture_output=True, text=True).stdout.splitlines()
    upstream = said[0].split()[-1] if said else ""
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+~]*", upstream):
        fail("cannot read the program's version from `trailpack --version`: %r" % said[:1])
    version = args.version or upstream + "-1"
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+~]*-[0-9A-Za-z.+~]+", version):
        fail("--version %r is not a Debian version with a revision (like 0.1.0-1)" % version)
    arch = run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or git_time() or time.time())

    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="trailpack-deb-", dir=args.out)
    try:
        stage = os.path.join(work, "root")
        tree(stage, binary, version, epoch)
        control(stage, work, version, arch)
        for path, _, files in os.walk(stage):
            for name in files + [path]:
                full = os.path.join(path, name) if name != path else path
                if not os.path.islink(full):
                    os.utime(full, (epoch, epoch))
        deb = os.path.join(args.out, "trailpack_%s_%s.deb" % (version, arch))
        env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch))
        run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", stage, deb], env=env, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(deb)


def git_time():
    try:
        out = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
        return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None
    except OSError:
        return None


def install(source, target, mode):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)
    os.chmod(target, mode)


def gzip_file(data, target, epoch):
    """gzip -9n: no name, the given time (lintian: no timestamp in the header of a reproducible file)."""
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=epoch) as f:
            f.write(data)
    os.chmod(target, 0o644)


def tree(stage, binary, version, epoch):
    program = os.path.join(stage, "usr/bin/trailpack")
    install(binary, program, 0o755)
    run(["strip", "--remove-section=.comment", "--remove-section=.note", "--strip-unneeded", program])

    # Manual pages: one per command, as the argument parser knows them.
    pages = manual_pages(binary, epoch)
    for name, text in pages.items():
        gzip_file(text, os.path.join(stage, "usr/share/man/man1", name + ".gz"), epoch)

    # Shell completions.
    for shell, target in [("bash", "usr/share/bash-completion/completions/trailpack"),
                          ("zsh", "usr/share/zsh/vendor-completions/_trailpack"),
                          ("fish", "usr/share/fish/vendor_completions.d/trailpack.fish")]:
        text = run([binary, "--generate-completion-script", shell], capture_output=True).stdout
        if not text:
            fail("trailpack --generate-completion-script %s printed nothing" % shell)
        if shell == "bash" and text.startswith(b"#!"):
            text = text.split(b"\n", 1)[1]  # sourced by bash-completion, never run
        path = os.path.join(stage, target)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text)
        os.chmod(path, 0o644)

    install(os.path.join(PACKAGING, "lintian-overrides"), os.path.join(stage, "usr/share/lintian/overrides/trailpack"),
            0o644)
    install(os.path.join(PACKAGING, "trailpack.service"), os.path.join(stage, "lib/systemd/system/trailpack.service"),
            0o644)
    install(os.path.join(PACKAGING, "serve.conf"), os.path.join(stage, "etc/trailpack/serve.conf"), 0o644)
    doc = os.path.join(stage, "usr/share/doc/trailpack")
    install(os.path.join(PACKAGING, "copyright"), os.path.join(doc, "copyright"), 0o644)
    install(os.path.join(PACKAGING, "README.Debian"), os.path.join(doc, "README.Debian"), 0o644)
    when = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(epoch))
    changelog = ("trailpack (%s) unstable; urgency=medium\n\n"
                 "  * Built from the trailpack repository (scripts/make_deb.py).\n\n"
                 " -- %s  %s\n" % (version, MAINTAINER, when))
    gzip_file(changelog.encode(), os.path.join(doc, "changelog.Debian.gz"), epoch)
    for path, folders, _ in os.walk(stage):
        for folder in folders:
            os.chmod(os.path.join(path, folder), 0o755)


def manual_pages(binary, epoch):
    """swift-argument-parser's generate-manual over the program: {file name: mdoc text}, one page per
    command, named as Debian names them (trailpack-admin-user-add.1, not trailpack.admin.user.add.1)."""
    date = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    tool = os.path.join(ROOT, ".build/debug/generate-manual")
    # Built once (make test builds it before the tests: a `swift build` started under `swift test`
    # would wait for ever on the build folder's lock).
    if not os.access(tool, os.X_OK):
        built = subprocess.run(["swift", "build", "--product", "generate-manual"], cwd=ROOT, capture_output=True,
                               text=True)
        if not os.access(tool, os.X_OK):
            fail("could not build swift-argument-parser's generate-manual:\n" + built.stdout + built.stderr)
    folder = tempfile.mkdtemp(prefix="trailpack-man-")
    try:
        run([tool, binary, "--multi-page", "--date", date, "--authors", "trailpack developers",
             "--output-directory", folder], capture_output=True)
        pages = {}
        for name in sorted(os.listdir(folder)):
            # The internal command the server runs in a child (verify-upload) is not for people.
            if not name.endswith(".1") or name == "trailpack.verify-upload.1":
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            # trailpack.admin.user in names, titles and cross-references: trailpack-admin-user.
            text = re.sub(r"\b(trailpack(?:\.[a-z][a-z-]*)+)", lambda m: m.group(1).replace(".", "-"), text)
            text = re.sub(r"\b(TRAILPACK(?:\.[A-Z][A-Z-]*)+)", lambda m: m.group(1).replace(".", "-"), text)
            text = mdoc_for_debian(text)
            pages[name[:-2].replace(".", "-") + ".1"] = text.encode()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if "trailpack.1" not in pages or "trailpack-serve.1" not in pages:
        fail("generate-manual made no trailpack.1 and trailpack-serve.1")
    return pages


def mdoc_for_debian(text):
    """The page's NAME is the file's (`trailpack-admin-user-add`, which whatis and apropos index),
    its synopsis the command as typed (`trailpack admin user add`); a blank line (a paragraph in
    the help text) is mdoc's paragraph macro, not an empty input line."""
    lines = text.split("\n")
    command = None
    out = []
    for line in lines:
        m = re.fullmatch(r'\.Nm "([^"]+)"', line)
        if m and command is None:
            command = m.group(1)
            out.append(".Nm " + command.replace(" ", "-"))
            continue
        if line == ".Nm" and command and " " in command:
            out.append('.Nm "%s"' % command)
            continue
        out.append(".Pp" if line.strip() == "" else line)
    while out and out[-1] == ".Pp":
        out.pop()
    return "\n".join(out) + "\n"


def control(stage, work, version, arch):
    debian = os.path.join(stage, "DEBIAN")
    os.makedirs(debian)
    # dpkg-shlibdeps wants a source tree's debian/control beside it.
    scratch = os.path.join(work, "shlibs")
    os.makedirs(os.path.join(scratch, "debian"))
    with open(os.path.join(scratch, "debian/control"), "w") as f:
        f.write("Source: trailpack\n\nPackage: trailpack\nArchitecture: any\n")
    found = run(["dpkg-shlibdeps", "-O", "-e" + os.path.join(stage, "usr/bin/trailpack")], cwd=scratch,
                capture_output=True, text=True).stdout
    shlibs = found.strip().split("=", 1)[1] if "=" in found else ""
    depends = ", ".join(x for x in [shlibs, "adduser", "libjs-leaflet", "libjs-bootstrap5"] if x)
    size = 0
    for path, _, files in os.walk(stage):
        for name in files:
            full = os.path.join(path, name)
            if not os.path.islink(full):
                size += (os.path.getsize(full) + 1023) // 1024
    with open(os.path.join(debian, "control"), "w") as f:
        f.write("""Package: trailpack
Version: %(version)s
Architecture: %(arch)s
Maintainer: %(maintainer)s
Installed-Size: %(size)d
Depends: %(depends)s
Recommends: clamav, nginx
Suggests: postgresql, node-tweetnacl
Section: web
Priority: optional
Homepage: https://github.com/trailpack/trailpack
Description: offline content packages for self-guided trail tours
 trailpack builds, signs, serves and verifies the packages a ranger station
 publishes for visitors who take a tour with no connection: the tour's stops,
 texts, media and the map of the region in one ZIP.
 .
 This package holds the one program (command line, download server, the web
 control panel for rangers and reviewers, and the visitor web app) and runs
 `trailpack serve` as a sandboxed systemd service on /var/lib/trailpack.
""" % {"version": version, "arch": arch, "size": size, "depends": depends,
                 "maintainer": MAINTAINER})
    with open(os.path.join(debian, "conffiles"), "w") as f:
        f.write("/etc/trailpack/serve.conf\n")
    for script in ["postinst", "prerm", "postrm"]:
        install(os.path.join(PACKAGING, script), os.path.join(debian, script), 0o755)
    with open(os.path.join(debian, "md5sums"), "w") as f:
        for path, _, files in sorted(os.walk(stage)):
            if path.startswith(debian):
                continue
            for name in sorted(files):
                full = os.path.join(path, name)
                if os.path.islink(full):
                    continue
                with open(full, "rb") as g:
                    digest = hashlib.md5(g.read()).hexdigest()
                f.write("%s  %s\n" % (digest, os.path.relpath(full, stage)))
    for name in ["control", "conffiles", "md5sums"]:
        os.chmod(os.path.join(debian, name), 0o644)


if __name__ == "__main__":
    main()
