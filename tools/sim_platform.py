#!/usr/bin/env python3
"""Derives a simulated machine with N GPUs from one StarPU calibrated (issue 46; docs/lab.md
"Simulated machines"): the SimGrid platform (every GPU a copy of the calibrated GPU 0, its host
links and PCIe path; every pair of GPUs linked as the calibrated GPUs 0 and 1 are, or at
--peer-gbs), the bus figures StarPU's schedulers read (bandwidth, latency, affinity, config), and
the codelets' performance models under the new machine's name. Simulate it with the SimGrid build:

    tools/sim_platform.py STARPU_HOME --from vm --gpus 8 --name h200x8
    STARPU_HOME=... STARPU_HOSTNAME=h200x8 STARPU_NCUDA=8 STARPU_NCPU=0 \\
      STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 build-sim/project/ondes3d run CASE ...

The performance models are GPU 0's for every GPU (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1): a block
costs a GPU what it cost the calibrated one.
"""
import argparse
import os
import re
import shutil
import sys


def link(lines, name):
    for line in lines:
        if f'<link id="{name}"' in line:
            return line
    sys.exit(f"no link {name} in the calibrated platform")


def attr(line, key):
    return re.search(fr'{key}="([^"]*)"', line).group(1)


def platform(text, gpus, peer_gbs, version):
    """The platform file (v3 or v4 syntax, as StarPU writes both) with `gpus` GPUs."""
    lines = text.splitlines()
    head = [l for l in lines if not re.search(r'<host id="CUDA|<link |<route |</route>|<link_ctn |</AS>|</platform>|<prop id="memsize"|<prop id="memcpy_peer"|^\s*</host>', l)]
    cuda0 = next(i for i, l in enumerate(lines) if '<host id="CUDA0"' in l)
    gpu_host = lines[cuda0:cuda0 + 4]  # the host line, its two props and </host>
    unit = "Bps" if version == 4 else ""
    to_gpu, from_gpu = link(lines, "RAM-CUDA0"), link(lines, "CUDA0-RAM")
    if peer_gbs:
        peer_bw, peer_lat = f"{peer_gbs * 1e9:f}{unit}", attr(to_gpu, "latency")
    elif any('<link id="CUDA0-CUDA1"' in l for l in lines):
        p = link(lines, "CUDA0-CUDA1")
        peer_bw, peer_lat = attr(p, "bandwidth"), attr(p, "latency")
    else:
        sys.exit("one GPU calibrated: give --peer-gbs (the GPUs' peer bandwidth)")
    host_link = link(lines, "Host")
    root_up, root_down, through = (link(lines, f"PCI:0000:[00-00] {d}") for d in ("up", "down", "through"))
    dev = [l for l in lines if re.search(r'<link id="PCI:[0-9a-f:.]+ up"', l)][0]
    dev_up = attr(dev, "bandwidth")
    dev_down = attr(link(lines, attr(dev, "id").replace(" up", " down")), "bandwidth")
    lat0 = attr(root_up, "latency")
    out = [l for l in head if '<host id="RAM"' not in l and "</AS>" not in l]
    out = [l for l in out if l.strip()]
    body = []
    for g in range(gpus):
        body += [gpu_host[0].replace('"CUDA0"', f'"CUDA{g}"')] + gpu_host[1:]
    body += [next(l for l in lines if '<host id="RAM"' in l), "", host_link]
    for g in range(gpus):
        body.append(to_gpu.replace("RAM-CUDA0", f"RAM-CUDA{g}"))
        body.append(from_gpu.replace("CUDA0-RAM", f"CUDA{g}-RAM"))
    for a in range(gpus):
        for b in range(gpus):
            if a != b:
                body.append(f'   <link id="CUDA{a}-CUDA{b}" bandwidth="{peer_bw}" latency="{peer_lat}"/>')
    body += [root_up, root_down, through]
    for g in range(gpus):
        body.append(f'   <link id="PCI:gpu{g} up" bandwidth="{dev_up}" latency="{lat0}"/>')
        body.append(f'   <link id="PCI:gpu{g} down" bandwidth="{dev_down}" latency="{lat0}"/>')

    def route(src, dst, links):
        return ([f'   <route src="{src}" dst="{dst}" symmetrical="NO">']
                + [f'    <link_ctn id="{l}"/>' for l in links] + ["   </route>"])

    for a in range(gpus):
        for b in range(gpus):
            if a != b:
                body += route(f"CUDA{a}", f"CUDA{b}", [f"CUDA{a}-CUDA{b}", f"PCI:gpu{b} down", "PCI:0000:[00-00] through"])
    for g in range(gpus):
        body += route(f"CUDA{g}", "RAM", [f"CUDA{g}-RAM", f"PCI:gpu{g} up", "PCI:0000:[00-00] through",
                                           "PCI:0000:[00-00] up", "Host"])
        body += route("RAM", f"CUDA{g}", [f"RAM-CUDA{g}", f"PCI:gpu{g} down", "PCI:0000:[00-00] through",
                                           "PCI:0000:[00-00] down", "Host"])
    return "\n".join(out + body + ["", " </AS>", " </platform>", ""])


def matrix(text, gpus):
    """bandwidth / latency: node 0 the host memory, nodes 1..gpus the GPUs, as nodes 0, 1, 2 were."""
    rows = [l for l in text.splitlines()]
    header, data = rows[0], [r.split("\t") for r in rows[1:] if r.strip()]
    cols = len(data[0]) - (1 if data[0][-1] == "" else 0)
    def at(i, j):
        return data[i][j]
    peer = at(1, 2) if len(data) > 2 and at(1, 2) != "nan" else at(0, 1)
    out = [header]
    for i in range(len(data)):
        row = []
        for j in range(cols):
            if i > gpus or j > gpus:
                v = "nan"
            elif i == j:
                v = at(0, 0)
            elif i == 0:
                v = at(0, 1)
            elif j == 0:
                v = at(1, 0)
            else:
                v = peer
            row.append(v)
        out.append("\t".join(row) + "\t")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("home", help="STARPU_HOME of the calibrated machine (its .starpu/sampling)")
    p.add_argument("--from", dest="source", required=True, help="the calibrated machine's name (its files' suffix)")
    p.add_argument("--gpus", type=int, required=True)
    p.add_argument("--name", required=True, help="the new machine's name (STARPU_HOSTNAME)")
    p.add_argument("--peer-gbs", type=float, default=0, help="GPU-to-GPU bandwidth, GB/s (default: the calibrated)")
    a = p.parse_args()
    bus = os.path.join(a.home, ".starpu", "sampling", "bus")
    src = lambda ext: os.path.join(bus, f"{a.source}.{ext}")
    dst = lambda ext: os.path.join(bus, f"{a.name}.{ext}")
    for ext, version in (("platform.xml", 3), ("platform.v4.xml", 4)):
        open(dst(ext), "w").write(platform(open(src(ext)).read(), a.gpus, a.peer_gbs, version))
    for ext in ("bandwidth", "latency"):
        open(dst(ext), "w").write(matrix(open(src(ext)).read(), a.gpus))
    affinity = open(src("affinity")).read().splitlines()
    open(dst("affinity"), "w").write("\n".join([affinity[0]] + [f"{g}\t0\t" for g in range(a.gpus)]) + "\n")
    config = open(src("config")).read()
    open(dst("config"), "w").write(re.sub(r"^\d+ # Number of CUDA devices", f"{a.gpus} # Number of CUDA devices",
                                          config, flags=re.M))
    models = os.path.join(a.home, ".starpu", "sampling", "codelets")
    copied = 0
    for root, _, files in os.walk(models):
        for f in files:
            if f.endswith("." + a.source):
                shutil.copy(os.path.join(root, f), os.path.join(root, f[: -len(a.source)] + a.name))
                copied += 1
    print(f"{a.name}: {a.gpus} GPUs derived from {a.source}; {copied} performance models copied")


if __name__ == "__main__":
    main()
