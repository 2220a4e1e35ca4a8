#!/usr/bin/env python3
"""lint.pic_tls: a client built as a shared library inlines the node paths (GASPI_inline.h,
gasnet_inline.h) and reads the library's thread-locals without __tls_get_addr.

Usage: pic_tls.py OBJECT. Fails when OBJECT's disassembly calls __tls_get_addr, or when it holds
no inline atomic (a `lock xadd`): then the inline path was not compiled in and nothing was checked.
"""
import shutil
import subprocess
import sys


def main() -> int:
    objdump = shutil.which("objdump")
    if objdump is None:
        print("pic_tls: objdump not found (binutils)")
        return 1
    text = subprocess.run([objdump, "-d", sys.argv[1]], check=True, capture_output=True, text=True).stdout
    if "lock xadd" not in text:
        print("pic_tls: no inline atomic in the client: the inline path was not compiled in")
        return 1
    calls = [line.strip() for line in text.splitlines() if "__tls_get_addr" in line]
    if calls:
        print("pic_tls: the client reaches the library's thread-locals through __tls_get_addr:")
        print("\n".join(calls))
        return 1
    print("pic_tls: inline paths in a -fPIC client read the thread-locals without __tls_get_addr")
    return 0


if __name__ == "__main__":
    sys.exit(main())
