"""The Python modules the tools need, with what installs them: a tool that lacks one says so in a
line (which module, the Debian package and the pip name) and exits 2, instead of a traceback.

    from pydeps import require
    h5py, np = require("h5py", "numpy")
"""
import importlib
import os
import sys

# module -> (Debian package, or None where Debian has none, pip name)
PACKAGES = {
    "h5py": ("python3-h5py", "h5py"),
    "numpy": ("python3-numpy", "numpy"),
    "matplotlib": ("python3-matplotlib", "matplotlib"),
    "lizard": (None, "lizard"),  # tools/setup.sh installs it into .venv
}


def require(*modules):
    """The modules, imported; exits 2 naming every missing one and how to install it."""
    found, missing = [], []
    for name in modules:
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            missing.append(name)
    if missing:
        tool = os.path.basename(sys.argv[0]) or "this tool"
        packages = {m: PACKAGES.get(m, ("python3-" + m, m)) for m in missing}
        how = ", ".join(f"{m} ({f'Debian: apt-get install {deb}; ' if deb else ''}pip: pip install {pip})"
                        for m, (deb, pip) in packages.items())
        sys.stderr.write(f"{tool} needs the Python module{'s' if len(missing) > 1 else ''} {how}; "
                         f"{sys.executable} has not got {'them' if len(missing) > 1 else 'it'}\n")
        sys.exit(2)
    return found[0] if len(found) == 1 else tuple(found)
