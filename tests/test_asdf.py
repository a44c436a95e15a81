#!/usr/bin/env python3
"""ASDF and SAC exports, read back with pyasdf and ObsPy (the tools seismologists use): every trace
equals the run's HDF5 seismogram (N = vx, E = vy, Z = -vz), with the station's coordinates, the
sampling and the start time the case implies, and the event's QuakeML matches the source. And
Ondes3D's station text files (obs<N>.dat: step vx vy vz) hold the same samples.

Runs the coarse LOH.1 case (inputs/loh1/loh1_h200.toml) once with ASDF and SAC on, the grid placed
at a non-trivial latitude/longitude and origin time. Run by ctest:
  .venv/bin/python tests/test_asdf.py BINARY SOURCE_DIR
"""
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import warnings

import h5py
import numpy as np
import obspy
import pyasdf

BINARY, SOURCE = sys.argv[1], sys.argv[2]
LAT0, LON0 = 44.5, 6.25
ORIGIN = "2019-11-11T10:52:45.5Z"
R_EARTH = 6371000.0


def expected_latlon(x, y):
    """docs/user-guide.md's convention: x north, y east of the grid corner, equirectangular on a 6371 km sphere."""
    return (LAT0 + math.degrees(x / R_EARTH),
            LON0 + math.degrees(y / (R_EARTH * math.cos(math.radians(LAT0)))))


class Exports(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        with open(os.path.join(SOURCE, "inputs/loh1/loh1_h200.toml")) as f:
            text = f.read()
        text = re.sub(r'\[output\][^\[]*', '[output]\nfile = "run.h5"\nasdf = true\nsac = true\nondes3d_text = true\n'
                      f'network = "LH"\norigin = [{LAT0}, {LON0}]\norigin_time = "{ORIGIN}"\n\n', text)
        cls.case = os.path.join(cls.tmp.name, "case.toml")
        with open(cls.case, "w") as f:
            f.write(text)
        r = subprocess.run([BINARY, "run", cls.case], cwd=cls.tmp.name, capture_output=True, text=True,
                           env=dict(os.environ, STARPU_SILENT="1"))
        if r.returncode != 0:
            raise RuntimeError(f"ondes3d failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        with h5py.File(os.path.join(cls.tmp.name, "run.h5"), "r") as f:
            ds = f["/seismograms/velocity"]
            cls.v = ds[...]
            cls.dt, cls.t0 = float(ds.attrs["dt"]), float(ds.attrs["t0"])
            cls.names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["/stations/name"][...]]
            cls.pos = f["/stations/position"][...]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # pyasdf warns on anything out of the format
            cls.ds = pyasdf.ASDFDataSet(os.path.join(cls.tmp.name, "run.asdf.h5"), mode="r")

    @classmethod
    def tearDownClass(cls):
        del cls.ds
        cls.tmp.cleanup()

    def component(self, s, c):
        return self.v[s, c] * (-1.0 if c == 2 else 1.0)

    def test_traces_equal_hdf5(self):
        self.assertEqual(sorted(self.ds.waveforms.list()), sorted(f"LH.{n}" for n in self.names))
        start = obspy.UTCDateTime(ORIGIN) + self.t0
        for s, name in enumerate(self.names):
            st = self.ds.waveforms[f"LH.{name}"].synthetic
            self.assertEqual(len(st), 3)
            for c, comp in enumerate("NEZ"):
                tr = st.select(component=comp)[0]
                self.assertEqual(tr.stats.channel, f"BX{comp}")  # 62.5 Hz: band B, synthetic X
                self.assertAlmostEqual(tr.stats.sampling_rate, 1.0 / self.dt, places=9)
                self.assertLess(abs(tr.stats.starttime - start), 1e-6)
                np.testing.assert_array_equal(tr.data, self.component(s, c))
        self.assertGreater(np.abs(self.v).max(), 1e-3)  # real signal, not zeros

    def test_station_coordinates(self):
        for s, name in enumerate(self.names):
            inv = self.ds.waveforms[f"LH.{name}"].StationXML
            sta = inv[0][0]
            lat, lon = expected_latlon(self.pos[s, 0], self.pos[s, 1])
            self.assertAlmostEqual(sta.latitude, lat, places=7)
            self.assertAlmostEqual(sta.longitude, lon, places=7)
            chans = {ch.code: ch for ch in sta.channels}
            self.assertEqual(set(chans), {"BXN", "BXE", "BXZ"})
            self.assertEqual((chans["BXE"].azimuth, chans["BXZ"].dip), (90.0, -90.0))
            self.assertAlmostEqual(chans["BXN"].sample_rate, 1.0 / self.dt, places=6)
            self.assertAlmostEqual(chans["BXN"].depth, self.pos[s, 2], places=3)

    def test_event_matches_source(self):
        ev = self.ds.events[0]
        o = ev.preferred_origin()
        with open(self.case) as f:
            src = re.search(r"position = \[([^\]]*)\]", f.read().split("[[sources]]")[1]).group(1)
        x, y, z = (float(t) for t in src.split(","))
        lat, lon = expected_latlon(x, y)
        self.assertAlmostEqual(o.latitude, lat, places=7)
        self.assertAlmostEqual(o.longitude, lon, places=7)
        self.assertAlmostEqual(o.depth, z, places=3)
        self.assertLess(abs(o.time - obspy.UTCDateTime(ORIGIN)), 1e-6)
        t = ev.focal_mechanisms[0].moment_tensor.tensor
        # Mxy = 1e18 N m (x north, y east, z down) is Mtp = -1e18 (r up, t south, p east).
        self.assertAlmostEqual(t.m_tp / 1e18, -1.0)
        for k in ("m_rr", "m_tt", "m_pp", "m_rt", "m_rp"):
            self.assertEqual(getattr(t, k), 0.0)
        self.assertAlmostEqual(ev.magnitudes[0].mag, 2.0 / 3.0 * (18 - 9.1), places=6)
        tr = self.ds.waveforms[f"LH.{self.names[0]}"].synthetic[0]
        self.assertEqual(str(tr.stats.asdf.event_ids[0]), str(ev.resource_id))

    def test_ondes3d_text_files(self):
        files = sorted(os.listdir(os.path.join(self.tmp.name, "run_obs")))
        self.assertEqual(files, sorted(f"obs{s + 1}.dat" for s in range(len(self.names))))
        for s in range(len(self.names)):
            rows = np.loadtxt(os.path.join(self.tmp.name, "run_obs", f"obs{s + 1}.dat"))
            self.assertEqual(rows.shape, (self.v.shape[2], 4))
            np.testing.assert_array_equal(rows[:, 0], np.arange(1, self.v.shape[2] + 1))
            # Ondes3D's axes: x east (our y), y north (our x), z up (our -z); %15e: 7 significant digits.
            for c, (ours, sign) in enumerate(((1, 1), (0, 1), (2, -1))):
                np.testing.assert_allclose(rows[:, 1 + c], sign * self.v[s, ours], rtol=6e-7, atol=0)

    def test_sac_files(self):
        for s, name in enumerate(self.names):
            for c, comp in enumerate("NEZ"):
                path = os.path.join(self.tmp.name, "run_sac", f"LH.{name}..BX{comp}.sac")
                with warnings.catch_warnings():
                    # SAC stores delta as float32; ObsPy says it rounds 0.016000001 back to 0.016.
                    warnings.filterwarnings("ignore", message="Sample spacing read from SAC file")
                    tr = obspy.read(path, format="SAC")[0]
                np.testing.assert_array_equal(tr.data, self.component(s, c))
                self.assertAlmostEqual(tr.stats.delta, self.dt, places=6)
                self.assertLess(abs(tr.stats.starttime - (obspy.UTCDateTime(ORIGIN) + self.t0)), 1e-3)
                lat, lon = expected_latlon(self.pos[s, 0], self.pos[s, 1])
                self.assertAlmostEqual(tr.stats.sac.stla, lat, places=4)
                self.assertAlmostEqual(tr.stats.sac.stlo, lon, places=4)
                self.assertEqual((tr.stats.sac.cmpaz, tr.stats.sac.cmpinc), ((90.0 if comp == "E" else 0.0),
                                                                             (0.0 if comp == "Z" else 90.0)))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
