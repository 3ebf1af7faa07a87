"""Checks a mastersim MAT result file with independent readers against the CSV of the same run.

Usage: check_mat.py MAT VALUES_CSV [--aliases SLAVE SYNONYMS_TXT] [--prefix-only]

* scipy.io.loadmat must read the file and find the DSRES matrices;
* every column of values.csv ("Slave.var [unit]") must exist in the MAT file, read through
  DyMat, with the same unit (the text in the description's final brackets) and the same
  values (the CSV prints 14 significant digits), and DyMat's abscissa must equal the CSV's
  time column converted to seconds;
* each variable is also decoded directly from scipy's matrices via dataInfo and must equal
  DyMat's result (two readers, one answer);
* with --aliases, every synonym listed in synonymous_variables.txt must be readable and equal
  (possibly negated) to the variable it aliases;
* with --prefix-only (a killed run), the MAT file may hold more rows than the CSV (which is
  buffered); the CSV rows must then be a prefix of the MAT rows.

Exits with status 1 and a message on the first mismatch; prints a summary line otherwise.
"""

import math
import re
import sys

import DyMat
import numpy
import scipy.io

TIME_FACTORS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0, "a": 31536000.0}


def fail(message):
    print("MISMATCH: " + message)
    sys.exit(1)


def close(a, b):
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= 1e-12 * abs(b) + 1e-300


def read_csv(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    header = [c.strip() for c in lines[0].split("\t")]
    rows = [[float(x) for x in l.split("\t")] for l in lines[1:] if l.strip()]
    return header, rows


def split_caption(caption):
    m = re.match(r"^(.*) \[(.*)\]$", caption)
    return (m.group(1), m.group(2)) if m else (caption, "")


def main(argv):
    mat_path, csv_path = argv[0], argv[1]
    prefix_only = "--prefix-only" in argv
    aliases = None
    if "--aliases" in argv:
        i = argv.index("--aliases")
        aliases = (argv[i + 1], argv[i + 2])

    raw = scipy.io.loadmat(mat_path, chars_as_strings=False)
    for key in ["Aclass", "name", "description", "dataInfo", "data_1", "data_2"]:
        if key not in raw:
            fail("scipy: matrix %s missing" % key)
    names = ["".join(c).rstrip() for c in zip(*raw["name"])]
    info = raw["dataInfo"]

    def scipy_values(name):
        i = names.index(name)
        block, column = int(info[0][i]), int(info[1][i])
        data = raw["data_%d" % block]
        values = data[abs(column) - 1]
        return -values if column < 0 else values

    dm = DyMat.DyMatFile(mat_path)
    header, rows = read_csv(csv_path)
    if not prefix_only and len(rows) == 0:
        fail("CSV has no rows")
    time_name, time_unit = split_caption(header[0])
    factor = TIME_FACTORS[time_unit]
    checked = 0
    for c, caption in enumerate(header):
        if c == 0:
            continue
        name, unit = split_caption(caption)
        if name not in dm.names():
            fail("%s not in the MAT file" % name)
        description = dm.description(name)
        m = re.search(r"\[([^\[\]]*)\]\s*$", description)
        mat_unit = m.group(1) if m else ""
        if mat_unit != unit:
            fail("%s: unit %r in MAT, %r in CSV" % (name, mat_unit, unit))
        values = dm.data(name)
        time = dm.abscissa(name, valuesOnly=True)
        direct = scipy_values(name)
        if not numpy.array_equal(values, direct, equal_nan=True):
            fail("%s: DyMat and scipy disagree" % name)
        if prefix_only:
            if len(values) < len(rows):
                fail("%s: %d rows in MAT, %d in CSV" % (name, len(values), len(rows)))
            finite = time[~numpy.isnan(time)]
            if numpy.isnan(time[: len(finite)]).any() or not (numpy.diff(finite) > 0).all():
                fail("%s: MAT time points not increasing (a NaN may only end the file)" % name)
        elif len(values) != len(rows):
            fail("%s: %d rows in MAT, %d in CSV" % (name, len(values), len(rows)))
        for r, row in enumerate(rows):
            if not close(values[r], row[c]) and not (abs(values[r] - row[c]) <= 5e-14 * abs(row[c])):
                fail("%s row %d: MAT %r, CSV %r" % (name, r, values[r], row[c]))
            if not abs(time[r] - row[0] * factor) <= 1e-12 * abs(time[r]) + 1e-12:
                fail("%s row %d: MAT time %r, CSV time %r %s" % (name, r, time[r], row[0], time_unit))
        checked += 1

    alias_count = 0
    if aliases is not None:
        slave, synonyms = aliases
        for line in open(synonyms, encoding="utf-8").read().splitlines():
            _, base, alias = line.split("\t")
            base, alias = "%s.%s" % (slave, base), "%s.%s" % (slave, alias)
            a, b = dm.data(alias), dm.data(base)
            if not (numpy.array_equal(a, b, equal_nan=True) or numpy.array_equal(a, -b, equal_nan=True)):
                fail("alias %s differs from %s" % (alias, base))
            alias_count += 1
        if alias_count == 0:
            fail("no aliases listed in %s" % synonyms)

    print("OK %d variables, %d rows, %d aliases" % (checked, len(rows), alias_count))


if __name__ == "__main__":
    main(sys.argv[1:])
